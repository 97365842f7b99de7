"""The in-process model's prompt work: its prefix cache against one pass over every prompt.

The local backend (irdata/llm/local.py) runs a prompt in blocks at fixed offsets and keeps each block's
key/value states, so a prompt that shares whole leading blocks with a recent one computes only the rest,
and it sends only the positions it reads through the output layer. The baseline, `one_pass`, is what the
backend did before: one forward pass over the whole prompt with the logits of every position. Both arms
run the same calls on the same loaded model (SmolLM2-135M), interleaved round by round:

- grade: the demo's audit pairs (resources/demo/audit.qrels.tsv) under the grading prompt, in qrels order
  (a query's passages one after another, as the audit and the grade stage send them);
- 44b: one review summary against its candidate papers under the 44b grading prompt (the LLM arm's calls);
- wood: log-likelihoods of an answer after the passage prompt (WOOD's with-passage calls);
- agent: the prompts of search-agent episodes, turn after turn (each turn's prompt holds the one before),
  two episodes interleaved, up to the next token (the prefill that every agent turn pays before it writes).

Each arm's answers are checked equal in value (the grades; log-likelihoods within 1e-3): the cache changes
the work, not the answers.

usage: python bench/bench_local_model.py [--pairs 40] [--candidates 9] [--episodes 4] [--rounds 3] [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "workflow_scripts"))

from irdata.annotate.grading import grading_messages  # noqa: E402
from irdata.grade_scale import CHOICES  # noqa: E402
from irdata.llm.local import LocalBackend  # noqa: E402
from irdata.llm.prefix_cache import PrefixBlocks  # noqa: E402
from irdata.llm.settings import load_settings  # noqa: E402
from irdata.prompts import Prompt  # noqa: E402

DEMO = REPO / "resources/demo"


def _tsv(path: Path) -> dict[str, str]:
    return dict(line.rstrip("\n").split("\t", 1) for line in path.open(encoding="utf-8") if line.strip())


def grade_calls(pairs: int) -> list[list[dict]]:
    queries, passages = _tsv(DEMO / "queries.test.tsv"), _tsv(DEMO / "collection.tsv")
    prompt = Prompt(REPO / "prompts/grade_query_only.txt")
    rows = [line.split() for line in (DEMO / "audit.qrels.tsv").open(encoding="utf-8")][:pairs]
    return [grading_messages(prompt, queries[q], passages[p], None, False) for q, _, p, _ in rows]


def calls_44b(candidates: int) -> list[list[dict]]:
    papers = [json.loads(line) for line in (DEMO / "papers44b.jsonl").open(encoding="utf-8")][:candidates]
    review = json.loads((DEMO / "reviews44b.jsonl").open(encoding="utf-8").readline())
    prompt = Prompt(REPO / "prompts/grade_44b_pair.txt")
    return [[{"role": "user", "content": prompt.render(query=review["summary"][:600],
                                                       document=f"{p['title']}\n{p['abstract']}"[:900])}]
            for p in papers]


def wood_calls(pairs: int) -> list[tuple[str, str]]:
    passages = list(_tsv(DEMO / "collection.tsv").values())[:pairs]
    prompt = Prompt(REPO / "prompts/wood_with_passage.txt")
    return [(prompt.render(query="what is the difference between a violin and a viola", passage=p) + "\n",
             "A viola is larger than a violin and sounds lower.") for p in passages]


def agent_calls(episodes: int, turns: int = 3) -> list[list[dict]]:
    """The prompts of `episodes` agent episodes of `turns` turns each, interleaved as two in flight send them."""
    passages = list(_tsv(DEMO / "collection.tsv").items())
    queries = list(_tsv(DEMO / "queries.dev.small.tsv").values())
    system, task = Prompt(REPO / "prompts/agent_system.txt"), Prompt(REPO / "prompts/agent_task.txt")
    runs = []
    for e in range(episodes):
        shown = passages[e * 20:(e + 1) * 20]
        results = "\n".join(f"[{pid}] {text[:200]}" for pid, text in shown[:5])
        messages = [{"role": "system", "content": system.render()},
                    {"role": "user", "content": task.render(query=queries[e], results=results)}]
        prompts = [list(messages)]
        for t in range(1, turns):
            reply = json.dumps({"tool": "search_bm25", "arguments": {"query": f"{queries[e]} {t}"}})
            more = "\n".join(f"[{pid}] {text[:200]}" for pid, text in shown[5 * t:5 * t + 5])
            messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": more}]
            prompts.append(list(messages))
        runs.append(prompts)
    return [run[t] for t in range(turns) for pair in range(0, episodes, 2) for run in runs[pair:pair + 2]]


def one_pass_next(m, messages):
    torch = m.torch
    with torch.inference_mode():
        return int(m.model(torch.tensor([m._prompt_ids(messages)])).logits[0, -1].argmax())


def cached_next(m, messages):
    with m.torch.inference_mode():
        return int(m._last_logits(m._prompt_ids(messages), 1)[0][-1].argmax())


def one_pass_grade(m, messages):
    """The backend's grade before the prefix cache: one pass, every position's logits."""
    torch = m.torch
    with torch.inference_mode():
        ids = torch.tensor([m._prompt_ids(messages)])
        logp = torch.log_softmax(m.model(ids).logits[0, -1].float(), -1)
    scores = {c: float(logp[i]) for c, i in zip(CHOICES, m.choice_ids(CHOICES))}
    return max(scores, key=scores.get)


def one_pass_loglikelihood(m, context, continuation):
    from irdata.llm.loglikelihood import continuation_start

    torch = m.torch
    enc = m.tok(context + continuation, add_special_tokens=False, return_offsets_mapping=True)
    ids = enc["input_ids"]
    first = continuation_start([tuple(o) for o in enc["offset_mapping"]], len(context), context, continuation)
    with torch.inference_mode():
        x = torch.tensor([ids])
        logp = torch.log_softmax(m.model(x).logits[0].float(), -1)
        return float(logp[first - 1:len(ids) - 1].gather(1, x[0, first:, None])[:, 0].sum())


def cached_grade(m, messages):
    return m.grade(messages, CHOICES)["reply"]


def cached_loglikelihood(m, context, continuation):
    return sum(m.loglikelihood(context, continuation, [])["logprobs"])


def timed(fn, calls):
    start = time.perf_counter()
    out = [fn(*call) if isinstance(call, tuple) else fn(call) for call in calls]
    return time.perf_counter() - start, out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=40, help="audit pairs graded and WOOD calls")
    ap.add_argument("--candidates", type=int, default=9, help="44b candidates of the one review")
    ap.add_argument("--episodes", type=int, default=4, help="agent episodes of 3 turns")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (llm.threads)")
    args = ap.parse_args(argv)
    m = LocalBackend(load_settings({"backend": "local", "threads": args.threads})).m
    work = {"grade": (grade_calls(args.pairs), one_pass_grade, cached_grade),
            "44b": (calls_44b(args.candidates), one_pass_grade, cached_grade),
            "wood": (wood_calls(args.pairs), one_pass_loglikelihood, cached_loglikelihood),
            "agent": (agent_calls(args.episodes), one_pass_next, cached_next)}
    print(f"SmolLM2-135M in process, {args.threads} thread(s), block {m.prefix.block_size} tokens; "
          f"median of {args.rounds} rounds, arms alternating")
    print(f"{'calls':<7}{'n':>4}{'prompt tok':>12}{'one_pass s':>12}{'prefix s':>10}{'speed-up':>10}{'cached':>8}")
    for name, (calls, before, after) in work.items():
        tokens = [len(m._prompt_ids(c)) if isinstance(c, list) else len(m.tok(c[0] + c[1])["input_ids"])
                  for c in calls]
        times: dict[str, list[float]] = {"one_pass": [], "prefix": []}
        for r in range(args.rounds):
            arms = [("one_pass", before), ("prefix", after)]
            for arm, fn in arms if r % 2 == 0 else arms[::-1]:
                m.prefix = PrefixBlocks(m.prefix.capacity, m.prefix.block_size)  # each round from a cold cache
                seconds, out = timed(lambda *a, fn=fn: fn(m, *a), calls)
                times[arm].append(seconds)
                if arm == "one_pass":
                    reference = out
                else:
                    answers = out
        if name == "wood":
            assert all(abs(a - b) < 1e-3 for a, b in zip(answers, reference)), "the cache changed a log-likelihood"
        else:
            assert answers == reference, "the cache changed a grade"
        one, pre = statistics.median(times["one_pass"]), statistics.median(times["prefix"])
        print(f"{name:<7}{len(calls):>4}{sum(tokens):>12,}{one:>12.2f}{pre:>10.2f}{one / pre:>9.2f}x"
              f"{_cached_share(m, calls, after):>8.0%}")


def _cached_share(m, calls, fn) -> float:
    """The share of the calls' prompt tokens the prefix cache held, from a cold cache."""
    m.prefix = PrefixBlocks(m.prefix.capacity, m.prefix.block_size)
    cached = total = 0
    for call in calls:
        if isinstance(call, tuple):
            usage = m.loglikelihood(*call, [])["usage"]
            total, cached = total + usage[0], cached + usage[2]
        else:
            ids = m._prompt_ids(call)
            with m.torch.inference_mode():
                total, cached = total + len(ids), cached + m._last_logits(ids, 1)[1]
    return cached / total


if __name__ == "__main__":
    main()

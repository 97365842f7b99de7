"""The search agent: an LLM with BM25 and dense search tools proposes the passages that answer a query.

One episode per query. The harness shows the model the fused results of both searches for the
query itself; then each model turn may call one or more tools (all are run, in order, up to
`max_calls_per_turn`): search again (a reformulation when the query differs from the original and
from the example queries the prompts show, such as `<new words>`: a search for one of those is counted
as an example copy),
read further down a ranking (`page`), read a passage, propose passages, or finish. A proposal is
accepted only for a passage that exists and that the agent has been shown (no invented ids);
`agent_rank` is the position in the accepted list. Under an action grammar (irdata.llm.tool_grammar)
the ids a propose or read_passage action names are held to the ids the episode has shown (and not
proposed yet, for propose), so a small model cannot copy a placeholder, invent an id or repeat
itself. Every model message, tool call, search, rejection and protocol failure goes to the trace.

When the model breaks the tool protocol (no tool call, an unknown tool, a reply cut off at
`max_action_tokens`) it is told what went wrong and asked again; after `max_protocol_errors` the
episode ends, keeping what was proposed so far, and counts as a failure of kind `protocol`. An LLM
call that fails ends the episode as `llm_failure`, counted by kind.

Cited ids. Small models often answer in prose that cites passages by their shown id ("[1610]
answers it") instead of calling propose. With `accept_cited_ids`, such a reply still counts as a
protocol error, but the ids it cites in brackets are proposed (marked `cited`), except ids the reply
merely copies from a results list: a cited id whose bracket is followed by the start of the snippet
that was shown for it (the first ECHO_CHARS characters, or all of a shorter snippet) is an echo, not a
judgment, and is recorded as such, not proposed. Cited ids that were not shown or do not exist are
rejected and recorded like any proposal.

Long episodes. The conversation is kept within `max_context_chars`: when it grows past it, the oldest
search results are replaced by the list of ids they showed (the model keeps what it has seen, not the
text), so an episode can page deep into rankings on a model with a bounded context.

Searches run in one worker thread, off the event loop, so that a shard's LLM calls keep flowing
while a search computes; at most `max_in_flight` episodes run at once.
"""

from __future__ import annotations

import asyncio
import json
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from ..atomic import write_jsonl_atomic, write_parquet_atomic
from ..llm import LLMCallError
from ..passage_store import PassageStore
from ..retrieval.search import Searcher
from ..shard_files import AGENT_SCHEMA
from ..shards import read_id_list
from .common import Failures, LLMJob, finish_job, run_with_client
from .passages import TextStore

ECHO_CHARS = 40


def _tool(name: str, description: str, properties: dict, required: list[str]) -> dict:
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": properties, "required": required}}}


_PAGE = {"type": "integer", "minimum": 1, "description": "1 for the best hits, 2 for the next ones, ..."}
TOOLS = [
    _tool("search_bm25", "Keyword search (BM25) over the passage collection.",
          {"query": {"type": "string"}, "page": _PAGE}, ["query"]),
    _tool("search_dense", "Semantic search (dense embeddings) over the passage collection.",
          {"query": {"type": "string"}, "page": _PAGE}, ["query"]),
    _tool("read_passage", "Show the full text of one passage.",
          {"passage_id": {"type": "string"}}, ["passage_id"]),
    _tool("propose", "Add passages that answer the question to the answer list, best first.",
          {"passage_ids": {"type": "array", "items": {"type": "string"}}}, ["passage_ids"]),
    _tool("finish", "End the search.", {}, []),
]
SEARCH_TOOLS = ("search_bm25", "search_dense")


def agent_tools(budget: AgentBudget, id_chars: int | None) -> list[dict]:
    """TOOLS with the bounds the budget and the collection set: pages up to max_page, passage ids
    up to the longest id (`id_chars`, None: unbounded). A constrained reply
    (irdata.llm.tool_grammar) needs them; the model sees them in the tools' schemas."""
    tools = json.loads(json.dumps(TOOLS))
    for tool in tools:
        props = tool["function"]["parameters"]["properties"]
        if "page" in props:
            props["page"]["maximum"] = budget.max_page
        if id_chars is not None:
            for spec in (props.get("passage_id"), (props.get("passage_ids") or {}).get("items")):
                if spec is not None:
                    spec["maxLength"] = id_chars
    return tools


@dataclass(frozen=True)
class AgentBudget:
    """annotation.agent.<split> (schemas/annotation.schema.yaml holds the defaults and meanings)."""

    max_turns: int
    max_tool_calls: int
    max_proposals: int
    max_protocol_errors: int
    results_per_search: int
    snippet_chars: int
    max_action_tokens: int
    accept_cited_ids: bool
    max_page: int
    max_calls_per_turn: int
    max_context_chars: int
    tool_choice: str


_CITED = re.compile(r"\[([^\[\]\s]{1,40})\]")
# a search query written out in a prompt's example action
_EXAMPLE_QUERY = re.compile(r'"query"\s*:\s*"([^"]*)"')


def example_queries(*prompts) -> frozenset[str]:
    """The search queries the prompts' example actions show (casefolded): a search for one of them copies
    the example, it does not reformulate."""
    return frozenset(q.strip().casefold() for p in prompts for q in _EXAMPLE_QUERY.findall(p.text))


@dataclass
class Episode:
    query_id: str
    proposals: list[str] = field(default_factory=list)
    cited: set[str] = field(default_factory=set)
    trace: list[dict] = field(default_factory=list)
    end: str = ""
    failure_kind: str | None = None
    protocol_errors: int = 0

    def record(self, event: str, **details) -> None:
        self.trace.append({"event": event, **details})


class SearchAgent:
    def __init__(self, client, searcher, passages, system, task, budget: AgentBudget, stage: str = "agent",
                 max_in_flight: int = 64, id_chars: int | None = None):
        self.client = client
        self.tools = agent_tools(budget, id_chars)
        self.searcher = searcher
        self.passages = passages
        self.system = system
        self.task = task
        self.examples = example_queries(system, task)
        self.budget = budget
        self.stage = stage
        self._episodes = asyncio.Semaphore(max_in_flight)
        self._search_thread = ThreadPoolExecutor(1, thread_name_prefix="agent-search")

    # -- what the model is shown --------------------------------------------------------------
    def _titled(self, pid: str, text: str) -> str:
        """A passage as the agent sees it: a title (a BEIR corpus) leads, marked as such."""
        title = self.passages.title(pid)
        return f"(title: {title}) {text}" if title else text

    def _snippet_text(self, pid: str) -> str:
        text = self.passages[pid]
        if len(text) > self.budget.snippet_chars:
            text = text[: self.budget.snippet_chars].rsplit(" ", 1)[0] + " ..."
        return self._titled(pid, text)

    def _results(self, ids: list[str], shown: dict[str, str]) -> str:
        lines = []
        for pid in ids:
            shown[pid] = self._snippet_text(pid)
            lines.append(f"[{pid}] {shown[pid]}")
        return "\n".join(lines) or "No results."

    async def _searched(self, fn, *args) -> list[str]:
        hits = await asyncio.get_running_loop().run_in_executor(self._search_thread, fn, *args)
        return [str(pid) for pid in hits.ids.tolist()]

    @staticmethod
    def _id_choices(episode: Episode, shown: dict[str, str]) -> dict:
        """What a constrained action may name: passages the episode has shown, and for propose only those
        not proposed yet (the agent rejects any other), so that a model cannot copy a placeholder id,
        invent one or repeat a proposal."""
        proposed = set(episode.proposals)
        return {"propose": {"passage_ids": [pid for pid in shown if pid not in proposed]},
                "read_passage": {"passage_id": list(shown)}}

    # -- tools ----------------------------------------------------------------------------------
    def _propose(self, episode: Episode, shown: dict[str, str], ids, cited: bool = False) -> str:
        if not isinstance(ids, list):
            ids = [ids]
        accepted, rejected = [], []
        for pid in ids:
            pid = str(pid).strip().strip("[]")
            if pid not in self.passages:
                rejected.append({"passage_id": pid, "why": "no such passage"})
            elif pid not in shown:
                rejected.append({"passage_id": pid, "why": "not shown to the agent"})
            elif pid in episode.proposals or pid in accepted:
                rejected.append({"passage_id": pid, "why": "already proposed"})
            elif len(episode.proposals) + len(accepted) >= self.budget.max_proposals:
                rejected.append({"passage_id": pid, "why": "proposal budget reached"})
            else:
                accepted.append(pid)
        episode.proposals.extend(accepted)
        if cited:
            episode.cited.update(accepted)
        episode.record("propose", accepted=accepted, rejected=rejected, cited=cited)
        reply = f"Accepted {len(accepted)} passage(s); the list holds {len(episode.proposals)}."
        if rejected:
            reply += " Rejected: " + "; ".join(f"{r['passage_id']} ({r['why']})" for r in rejected) + "."
        return reply

    async def _search(self, episode: Episode, original: str, shown: dict[str, str], tool: str, args: dict):
        """(reply, the ids shown or None when nothing was searched) of a search call."""
        query = str(args.get("query", "")).strip()
        if not query:
            return "The query is empty: give a query.", None
        page = args.get("page", 1)
        page = int(page) if isinstance(page, str) and page.isdigit() else page
        if not isinstance(page, int) or not 1 <= page <= self.budget.max_page:
            return f"page must be a whole number from 1 to {self.budget.max_page}.", None
        n = self.budget.results_per_search
        search = self.searcher.bm25 if tool == "search_bm25" else self.searcher.dense
        ids = (await self._searched(search, query, page * n))[(page - 1) * n:]
        copied = query.casefold() in self.examples
        episode.record("search", tool=tool, query=query, page=page, example_copy=copied,
                       reformulation=not copied and query.casefold() != original.casefold(), hits=ids)
        return self._results(ids, shown), ids

    async def _run_tool(self, episode: Episode, original: str, shown: dict[str, str], call):
        """Execute one tool call: (the tool's reply, whether the episode is over, the ids a search showed)."""
        args = call.arguments or {}
        if call.name in SEARCH_TOOLS:
            reply, ids = await self._search(episode, original, shown, call.name, args)
            return reply, False, ids
        if call.name == "read_passage":
            pid = str(args.get("passage_id", "")).strip().strip("[]")
            text = self.passages.get(pid)
            episode.record("read", passage_id=pid, found=text is not None)
            if text is None:
                return f"No passage has the id {pid!r}.", False, None
            shown.setdefault(pid, self._snippet_text(pid))
            return f"[{pid}] {self._titled(pid, text)}", False, None
        if call.name == "propose":
            reply = self._propose(episode, shown, args.get("passage_ids", []))
            return reply, len(episode.proposals) >= self.budget.max_proposals, None
        if call.name == "finish":
            return "Search finished.", True, None
        return f"Unknown tool {call.name!r}.", False, None

    def _cited_ids(self, text: str, shown: dict[str, str]) -> tuple[list[str], list[str]]:
        """(ids the reply cites as its own judgment, ids it only copies from a results list)."""
        cited, echoed = [], []
        for match in _CITED.finditer(text):
            pid = match.group(1)
            snippet = shown.get(pid)
            copy = snippet is not None and text[match.end():].lstrip().startswith(snippet[:ECHO_CHARS])
            (echoed if copy else cited).append(pid)
        return list(dict.fromkeys(cited)), list(dict.fromkeys(echoed))

    def _fit_context(self, messages: list[dict], summaries: dict[int, str]) -> None:
        """Collapse the oldest search results to their ids while the conversation is too long."""
        size = sum(len(m.get("content") or "") for m in messages)
        for i in sorted(summaries):
            if size <= self.budget.max_context_chars:
                break
            old = messages[i]["content"]
            messages[i] = {**messages[i], "content": summaries.pop(i)}
            size -= len(old) - len(messages[i]["content"])

    # -- an episode -----------------------------------------------------------------------------
    async def run(self, query_id: str, query: str) -> Episode:
        async with self._episodes:
            return await self._run(query_id, query)

    async def _run(self, query_id: str, query: str) -> Episode:
        episode = Episode(query_id)
        shown: dict[str, str] = {}
        first = await self._searched(self.searcher.hybrid, query, self.budget.results_per_search)
        episode.record("search", tool="hybrid", query=query, page=1, example_copy=False, reformulation=False,
                       hits=first)
        messages = [
            {"role": "system", "content": self.system.render()},
            {"role": "user", "content": self.task.render(query=query, results=self._results(first, shown))},
        ]
        summaries: dict[int, str] = {}  # message index -> what a search result collapses to
        tool_calls = 0
        for turn in range(self.budget.max_turns):
            self._fit_context(messages, summaries)
            try:
                result = await self.client.chat(messages, tools=self.tools, stage=self.stage,
                                                max_tokens=self.budget.max_action_tokens,
                                                tool_choice=self.budget.tool_choice, route=query_id,
                                                choices=self._id_choices(episode, shown))
            except LLMCallError as error:
                episode.record("llm_failure", turn=turn, kind=error.kind, reason=error.reason)
                episode.end, episode.failure_kind = "llm_failure", error.kind
                return episode
            finish = result.finish_reason
            # how the action was constrained, and whether the reply is one the agent can run
            complied = bool(result.tool_calls) and result.protocol_error is None and finish != "length"
            episode.record("model", turn=turn, text=result.text, finish_reason=finish,
                           tool_calls=[{"name": c.name, "arguments": c.arguments} for c in result.tool_calls],
                           constraint=result.constraint, complied=complied)
            if not result.tool_calls:
                if await self._protocol_error(episode, result, finish, shown, messages, turn):
                    return episode
                continue
            calls = result.tool_calls[: self.budget.max_calls_per_turn]
            messages.append({"role": "assistant", "content": "", "tool_calls": [{
                "id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                for c in calls]})
            done = False
            for call in calls:
                tool_calls += 1
                reply, done, ids = await self._run_tool(episode, query, shown, call)
                if ids:
                    summaries[len(messages)] = f"(search results shown earlier: {', '.join(ids)})"
                messages.append({"role": "tool", "tool_call_id": call.id, "content": reply})
                if done:
                    episode.end = "finished" if call.name == "finish" else "proposal_budget"
                    break
                if tool_calls >= self.budget.max_tool_calls:
                    episode.end = "tool_call_budget"
                    break
            if len(result.tool_calls) > len(calls):
                episode.record("calls_dropped", turn=turn, dropped=len(result.tool_calls) - len(calls))
            if episode.end:
                return episode
        episode.end = "turn_budget"
        return episode

    async def _protocol_error(self, episode, result, finish, shown, messages, turn) -> bool:
        """Record a reply that called no tool, tell the model, propose its cited ids; True ends the episode."""
        episode.protocol_errors += 1
        if finish == "length":
            problem = (f"the reply was cut off at {self.budget.max_action_tokens} tokens before it finished; "
                       "keep each action short")
        else:
            problem = result.protocol_error or "the reply called no tool"
        episode.record("protocol_error", turn=turn, detail=problem)
        if self.budget.accept_cited_ids:
            cited, echoed = self._cited_ids(result.text, shown)
            if echoed:
                episode.record("echoed_ids", turn=turn, passage_ids=echoed)
            if cited:
                self._propose(episode, shown, cited, cited=True)
                if len(episode.proposals) >= self.budget.max_proposals:
                    episode.end = "proposal_budget"
                    return True
        if episode.protocol_errors > self.budget.max_protocol_errors:
            episode.end = "protocol_errors"
            return True
        messages += [{"role": "assistant", "content": result.text},
                     {"role": "user", "content": f"That was not a valid tool call ({problem}). "
                                                 "Call a tool; to stop, call finish."}]
        return False

    async def run_many(self, queries: list[tuple[str, str]]) -> list[Episode]:
        try:
            return list(await asyncio.gather(*(self.run(qid, text) for qid, text in queries)))
        finally:
            self._search_thread.shutdown(wait=False)


def agent_behaviour(episodes: list[Episode]) -> dict:
    """Model turns, how their actions were constrained (tool_grammar.TOOL_PATHS) and how many the
    agent could run, and the searches the model asked for (the harness's first one excluded)."""
    turns = [ev for e in episodes for ev in e.trace if ev["event"] == "model"]
    searches = [ev for e in episodes for ev in e.trace if ev["event"] == "search" and ev["tool"] != "hybrid"]
    paths: dict[str, int] = {}
    for ev in turns:
        paths[str(ev["constraint"])] = paths.get(str(ev["constraint"]), 0) + 1
    return {"turns": len(turns), "complied_turns": sum(ev["complied"] for ev in turns),
            "action_constraint": dict(sorted(paths.items())), "searches": len(searches),
            "reformulations": sum(ev["reformulation"] for ev in searches),
            "example_copies": sum(ev["example_copy"] for ev in searches)}


def episode_failures(episodes: list[Episode]) -> Failures:
    """An episode fails when a call failed (its kind) or when it ended by breaking the tool protocol
    (`protocol`; what it proposed before, cited ids included, is kept). `protocol` is not retried by a
    plain rerun: the journal would replay the same replies (release gate: what to do instead)."""
    failures = Failures("episodes", len(episodes))
    for e in episodes:
        if e.end == "llm_failure":
            failures.add(e.failure_kind)
        elif e.end == "protocol_errors":
            failures.add("protocol")
    return failures


def run_agent_search(*, shard, queries, collection, bm25, dense, prompts: dict, settings: dict, job: LLMJob, proposals,
                     trace, stats, bm25_dir, dense_dir, threads: int | None = None) -> dict:
    """The agent_search rule: one episode per query of the shard; proposals, trace and stats out. The indexes
    (`bm25`, `dense`: their files, which decide reruns) are read from their folders `bm25_dir`, `dense_dir`."""
    searcher = Searcher(settings["search"], bm25_dir, dense_dir, threads=threads)
    texts = TextStore.queries(queries)
    passages = PassageStore(collection)
    todo = [(qid, texts[qid]) for qid in read_id_list(shard)]
    id_chars = pc.max(pc.utf8_length(passages.ids)).as_py() if len(passages) else None
    # the shard's queries encoded in one batch, in shard order (the same vectors on every run)
    searcher.prepare([text for _, text in todo])

    async def episodes_of(client):
        agent = SearchAgent(client, searcher, passages, prompts["system"], prompts["task"],
                            AgentBudget(**settings["budget"]), max_in_flight=job.settings.max_in_flight,
                            id_chars=id_chars)
        return await agent.run_many(todo)

    episodes, client = run_with_client(job, episodes_of)
    rows = [(e.query_id, pid, rank, pid in e.cited) for e in episodes for rank, pid in enumerate(e.proposals, 1)]
    write_parquet_atomic(pa.table({
        "query_id": [r[0] for r in rows], "passage_id": [r[1] for r in rows], "agent_rank": [r[2] for r in rows],
        "cited": [r[3] for r in rows],
    }, schema=AGENT_SCHEMA), proposals)
    write_jsonl_atomic(trace, ({"query_id": e.query_id, "end": e.end, "proposals": e.proposals, "trace": e.trace}
                               for e in episodes))
    ends: dict[str, int] = {}
    for e in episodes:
        ends[e.end] = ends.get(e.end, 0) + 1
    failures = episode_failures(episodes)
    summary = {"queries": len(episodes), "with_proposals": sum(bool(e.proposals) for e in episodes),
               "proposals": len(rows), "cited_proposals": sum(r[3] for r in rows),
               "echoed_ids": sum(len(ev["passage_ids"]) for e in episodes for ev in e.trace
                                 if ev["event"] == "echoed_ids"),
               "protocol_errors": sum(e.protocol_errors for e in episodes),
               **agent_behaviour(episodes),
               "episode_ends": dict(sorted(ends.items()))}
    finish_job(job, stats, "agent_search", client, failures, **summary)
    return summary

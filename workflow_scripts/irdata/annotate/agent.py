"""The search agent: an LLM with BM25 and dense search tools proposes the passages that answer a query.

One episode per query. The harness shows the model the fused results of both searches for the
query itself, then the model acts one tool call a turn: search again (a reformulation when the
query differs from the original), read a passage, propose passages, or finish. A proposal is
accepted only for a passage that exists and that the agent has been shown (no invented ids);
`agent_rank` is the position in the accepted list. Every model message, tool call, search,
rejection and protocol failure goes to the trace. When the model breaks the tool protocol it is
told what went wrong and asked again; after `max_protocol_errors` the episode ends, keeping what
was proposed so far (possibly nothing: the query then has no agent rows).

Small models often answer in prose that cites passages by their shown id ("[1610] answers it")
instead of calling propose. With `accept_cited_ids`, such a reply still counts as a protocol error
(and is answered with the reminder), but the passage ids it cites in brackets, among those shown,
are proposed in the order cited; the trace marks the proposal `cited`.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field

import pyarrow as pa

from ..atomic import write_jsonl_atomic, write_parquet_atomic
from ..llm import LLMCallError
from ..shards import read_id_list
from .common import run_with_client, write_stats
from .passages import TextStore
from .prompts import Prompt


def _tool(name: str, description: str, properties: dict, required: list[str]) -> dict:
    return {"type": "function", "function": {
        "name": name, "description": description,
        "parameters": {"type": "object", "properties": properties, "required": required}}}


TOOLS = [
    _tool("search_bm25", "Keyword search (BM25) over the passage collection.",
          {"query": {"type": "string"}}, ["query"]),
    _tool("search_dense", "Semantic search (dense embeddings) over the passage collection.",
          {"query": {"type": "string"}}, ["query"]),
    _tool("read_passage", "Show the full text of one passage.",
          {"passage_id": {"type": "string"}}, ["passage_id"]),
    _tool("propose", "Add passages that answer the question to the answer list, best first.",
          {"passage_ids": {"type": "array", "items": {"type": "string"}}}, ["passage_ids"]),
    _tool("finish", "End the search.", {}, []),
]


@dataclass(frozen=True)
class AgentBudget:
    max_turns: int = 8
    max_tool_calls: int = 12
    max_proposals: int = 60
    max_protocol_errors: int = 2
    results_per_search: int = 5
    snippet_chars: int = 240
    max_action_tokens: int = 96
    accept_cited_ids: bool = True


_CITED = re.compile(r"\[([^\[\]\s]{1,40})\]")


@dataclass
class Episode:
    query_id: str
    proposals: list[str] = field(default_factory=list)
    trace: list[dict] = field(default_factory=list)
    end: str = ""

    def record(self, event: str, **details) -> None:
        self.trace.append({"event": event, **details})


class SearchAgent:
    def __init__(self, client, searcher, passages: TextStore, system: Prompt, task: Prompt,
                 budget: AgentBudget, stage: str = "agent"):
        self.client = client
        self.searcher = searcher
        self.passages = passages
        self.system = system
        self.task = task
        self.budget = budget
        self.stage = stage

    def _snippet(self, pid: str) -> str:
        text = self.passages[pid]
        if len(text) > self.budget.snippet_chars:
            text = text[: self.budget.snippet_chars].rsplit(" ", 1)[0] + " ..."
        return f"[{pid}] {text}"

    def _search(self, tool: str, query: str) -> list[str]:
        k = self.budget.results_per_search
        hits = self.searcher.bm25(query, k) if tool == "search_bm25" else self.searcher.dense(query, k)
        return [str(pid) for pid in hits.ids.tolist()]

    def _initial_results(self, query: str) -> list[str]:
        """Reciprocal-rank fusion of both searches for the query itself."""
        return [str(pid) for pid in self.searcher.hybrid(query, self.budget.results_per_search).ids.tolist()]

    def _propose(self, episode: Episode, seen: set[str], ids, cited: bool = False) -> str:
        if not isinstance(ids, list):
            ids = [ids]
        accepted, rejected = [], []
        for pid in ids:
            pid = str(pid).strip().strip("[]")
            if pid not in self.passages:
                rejected.append({"passage_id": pid, "why": "no such passage"})
            elif pid not in seen:
                rejected.append({"passage_id": pid, "why": "not shown to the agent"})
            elif pid in episode.proposals or pid in accepted:
                rejected.append({"passage_id": pid, "why": "already proposed"})
            elif len(episode.proposals) + len(accepted) >= self.budget.max_proposals:
                rejected.append({"passage_id": pid, "why": "proposal budget reached"})
            else:
                accepted.append(pid)
        episode.proposals.extend(accepted)
        episode.record("propose", accepted=accepted, rejected=rejected, cited=cited)
        reply = f"Accepted {len(accepted)} passage(s); the list holds {len(episode.proposals)}."
        if rejected:
            reply += " Rejected: " + "; ".join(f"{r['passage_id']} ({r['why']})" for r in rejected) + "."
        return reply

    def _run_tool(self, episode: Episode, original: str, seen: set[str], call) -> tuple[str, bool]:
        """Execute one tool call; return the tool's reply and whether the episode is over."""
        args = call.arguments or {}
        if call.name in ("search_bm25", "search_dense"):
            query = str(args.get("query", "")).strip()
            if not query:
                return "The query is empty: give a query.", False
            ids = self._search(call.name, query)
            seen.update(ids)
            episode.record("search", tool=call.name, query=query,
                           reformulation=query.casefold() != original.casefold(), hits=ids)
            return "\n".join(self._snippet(pid) for pid in ids) or "No results.", False
        if call.name == "read_passage":
            pid = str(args.get("passage_id", "")).strip().strip("[]")
            text = self.passages.get(pid)
            episode.record("read", passage_id=pid, found=text is not None)
            if text is None:
                return f"No passage has the id {pid!r}.", False
            seen.add(pid)
            return f"[{pid}] {text}", False
        if call.name == "propose":
            reply = self._propose(episode, seen, args.get("passage_ids", []))
            return reply, len(episode.proposals) >= self.budget.max_proposals
        if call.name == "finish":
            return "Search finished.", True
        return f"Unknown tool {call.name!r}.", False

    async def run(self, query_id: str, query: str) -> Episode:
        episode = Episode(query_id)
        first = self._initial_results(query)
        seen = set(first)
        episode.record("search", tool="hybrid", query=query, reformulation=False, hits=first)
        messages = [
            {"role": "system", "content": self.system.render()},
            {"role": "user", "content": self.task.render(
                query=query, results="\n".join(self._snippet(pid) for pid in first) or "No results.")},
        ]
        tool_calls = protocol_errors = 0
        for turn in range(self.budget.max_turns):
            try:
                result = await self.client.chat(messages, tools=TOOLS, stage=self.stage,
                                                max_tokens=self.budget.max_action_tokens)
            except LLMCallError as error:
                episode.record("llm_failure", turn=turn, reason=error.reason)
                episode.end = "llm_failure"
                return episode
            episode.record("model", turn=turn, text=result.text,
                           tool_calls=[{"name": c.name, "arguments": c.arguments} for c in result.tool_calls])
            if not result.tool_calls:
                protocol_errors += 1
                problem = result.protocol_error or "the reply called no tool"
                episode.record("protocol_error", turn=turn, detail=problem)
                cited = [pid for pid in dict.fromkeys(_CITED.findall(result.text)) if pid in seen]
                if self.budget.accept_cited_ids and cited:
                    self._propose(episode, seen, cited, cited=True)
                    if len(episode.proposals) >= self.budget.max_proposals:
                        episode.end = "proposal_budget"
                        return episode
                if protocol_errors > self.budget.max_protocol_errors:
                    episode.end = "protocol_errors"
                    return episode
                messages += [{"role": "assistant", "content": result.text},
                             {"role": "user", "content": f"That was not a valid tool call ({problem}). "
                                                         "Call one tool; to stop, call finish."}]
                continue
            call = result.tool_calls[0]  # one action a turn keeps the history readable for small models
            tool_calls += 1
            reply, done = self._run_tool(episode, query, seen, call)
            messages += [
                {"role": "assistant", "content": "", "tool_calls": [{
                    "id": call.id, "type": "function",
                    "function": {"name": call.name, "arguments": json.dumps(call.arguments)}}]},
                {"role": "tool", "tool_call_id": call.id, "content": reply},
            ]
            if done:
                episode.end = "finished" if call.name == "finish" else "proposal_budget"
                return episode
            if tool_calls >= self.budget.max_tool_calls:
                episode.end = "tool_call_budget"
                return episode
        episode.end = "turn_budget"
        return episode

    async def run_many(self, queries: list[tuple[str, str]]) -> list[Episode]:
        return list(await asyncio.gather(*(self.run(qid, text) for qid, text in queries)))


AGENT_SCHEMA = pa.schema([("query_id", pa.string()), ("passage_id", pa.string()), ("agent_rank", pa.int32())])


def run_agent_search(shard, queries_path, collection_path, searcher, llm_settings, journal, budget: dict,
                     system_prompt, task_prompt, out_proposals, out_trace, out_stats) -> dict:
    """The agent_search rule: one episode per query of the shard; proposals, trace and stats out."""
    queries = TextStore.queries(queries_path)
    passages = TextStore.collection(collection_path)
    todo = [(qid, queries[qid]) for qid in read_id_list(shard)]

    async def episodes_of(client):
        agent = SearchAgent(client, searcher, passages, Prompt(system_prompt), Prompt(task_prompt),
                            AgentBudget(**budget))
        return await agent.run_many(todo)

    episodes, client = run_with_client(llm_settings, journal, episodes_of)
    rows = [(e.query_id, pid, rank) for e in episodes for rank, pid in enumerate(e.proposals, start=1)]
    write_parquet_atomic(pa.table({
        "query_id": [r[0] for r in rows], "passage_id": [r[1] for r in rows], "agent_rank": [r[2] for r in rows],
    }, schema=AGENT_SCHEMA), out_proposals)
    write_jsonl_atomic(out_trace, ({"query_id": e.query_id, "end": e.end, "proposals": e.proposals,
                                     "trace": e.trace} for e in episodes))
    ends: dict[str, int] = {}
    for e in episodes:
        ends[e.end] = ends.get(e.end, 0) + 1
    summary = {"queries": len(episodes), "with_proposals": sum(bool(e.proposals) for e in episodes),
               "proposals": len(rows), "episode_ends": dict(sorted(ends.items()))}
    write_stats(out_stats, "agent_search", client, **summary)
    return summary

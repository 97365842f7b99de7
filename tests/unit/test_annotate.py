"""The LLM stages' own logic (agent harness, pairs to grade, answer passages, WOOD arithmetic),
driven by a scripted client. The real model runs them in tests/workflow."""

import asyncio
import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from irdata.annotate.agent import AgentBudget, SearchAgent
from irdata.annotate.answers import answer_passages
from irdata.annotate.grading import grade_pairs, pairs_to_grade
from irdata.annotate.passages import TextStore
from irdata.annotate.prompts import Prompt
from irdata.annotate.wood import wood_scores
from irdata.llm import ChatResult, GradeResult, LLMCallError, ToolCall
from irdata.retrieval.common import Hits


def hits(*ids):
    return Hits(np.array(ids, dtype=object), np.ones(len(ids), np.float32), np.arange(len(ids)))


class Searcher:
    def bm25(self, query, k):
        return hits("p1", "p2")

    def dense(self, query, k):
        return hits("p3")

    def hybrid(self, query, k):
        return hits("p2", "p4")


class ScriptedClient:
    """Replies from a script: a ToolCall, a plain text (a protocol break) or an exception."""

    def __init__(self, script=(), grades=None, logprobs=None):
        self.script = list(script)
        self.grades = grades or {}
        self.logprobs = logprobs or {}
        self.seen_messages = []

    async def chat(self, messages, tools=None, stage=None, **_):
        self.seen_messages.append(messages)
        step = self.script.pop(0)
        if isinstance(step, Exception):
            raise step
        if isinstance(step, ToolCall):
            return ChatResult("", [step], {})
        return ChatResult(step, [], {}, None)

    async def grade_many(self, conversations, choices, stage=None):
        out = []
        for convo in conversations:
            label = self.grades.get(convo[0]["content"].split("Passage: ")[1].split("\n")[0])
            out.append(GradeResult(label, label or "no idea", None if label else "unparseable"))
        return out

    async def loglikelihood_many(self, pairs, stage=None, on_error="raise"):
        out = []
        for context, continuation in pairs:
            value = self.logprobs.get(context.strip())
            out.append(LLMCallError("loglikelihood", stage, "boom") if value is None else value)
        return out


@pytest.fixture
def store(tmp_path):
    passages = TextStore(pa.chunked_array([["p1", "p2", "p3", "p4", "p5"]]),
                         pa.chunked_array([["one", "two", "three", "four", "five"]]))
    prompts = tmp_path
    (prompts / "s.txt").write_text("system")
    (prompts / "t.txt").write_text("Q: {query}\n{results}")
    return passages, Prompt(prompts / "s.txt"), Prompt(prompts / "t.txt")


def call(name, **arguments):
    return ToolCall(id=f"c-{name}", name=name, arguments=arguments)


def run(agent, qid="q1", text="what is one"):
    return asyncio.run(agent.run(qid, text))


def test_agent_proposes_only_shown_existing_new_passages(store):
    passages, system, task = store
    client = ScriptedClient([
        call("search_bm25", query="number one"),
        call("propose", passage_ids=["p1", "p9", "p5", "p1", "p2"]),
        call("finish"),
    ])
    episode = run(SearchAgent(client, Searcher(), passages, system, task, AgentBudget()))
    assert episode.proposals == ["p1", "p2"] and episode.end == "finished"
    propose = next(e for e in episode.trace if e["event"] == "propose")
    assert propose["rejected"] == [
        {"passage_id": "p9", "why": "no such passage"},
        {"passage_id": "p5", "why": "not shown to the agent"},
        {"passage_id": "p1", "why": "already proposed"},
    ]
    search = [e for e in episode.trace if e["event"] == "search"]
    assert search[0]["tool"] == "hybrid" and not search[0]["reformulation"]
    assert search[1] == {"event": "search", "tool": "search_bm25", "query": "number one",
                         "reformulation": True, "hits": ["p1", "p2"]}
    # the tool result reaches the model as a tool message
    assert client.seen_messages[-1][-1]["role"] == "tool"


def test_agent_protocol_errors_are_retried_then_end_the_episode(store):
    passages, system, task = store
    client = ScriptedClient(["I think p2.", call("propose", passage_ids=["p2"]), "still text", "more text", "again"])
    episode = run(SearchAgent(client, Searcher(), passages, system, task, AgentBudget(max_protocol_errors=2)))
    assert episode.proposals == ["p2"] and episode.end == "protocol_errors"
    assert [e["event"] for e in episode.trace].count("protocol_error") == 3
    assert "not a valid tool call" in client.seen_messages[1][-1]["content"]


def test_cited_ids_in_prose_are_proposed_and_still_count_as_protocol_errors(store):
    passages, system, task = store
    client = ScriptedClient(["[p4] answers it, and so does [p2]; also [p5].", call("finish")])
    episode = run(SearchAgent(client, Searcher(), passages, system, task, AgentBudget()))
    assert episode.proposals == ["p4", "p2"] and episode.end == "finished"
    assert [e["event"] for e in episode.trace].count("protocol_error") == 1
    assert next(e for e in episode.trace if e["event"] == "propose")["cited"] is True

    client = ScriptedClient(["[p4] answers it.", "again [p2]", "more", "more"])
    strict = AgentBudget(accept_cited_ids=False, max_protocol_errors=1)
    episode = run(SearchAgent(client, Searcher(), passages, system, task, strict))
    assert episode.proposals == [] and episode.end == "protocol_errors"


def test_agent_budgets_and_llm_failure(store):
    passages, system, task = store
    client = ScriptedClient([call("propose", passage_ids=["p2", "p4"])])
    episode = run(SearchAgent(client, Searcher(), passages, system, task, AgentBudget(max_proposals=1)))
    assert episode.proposals == ["p2"] and episode.end == "proposal_budget"

    client = ScriptedClient([call("read_passage", passage_id="p5")] * 3)
    episode = run(SearchAgent(client, Searcher(), passages, system, task, AgentBudget(max_tool_calls=2)))
    assert episode.end == "tool_call_budget" and episode.proposals == []

    client = ScriptedClient([LLMCallError("chat", "agent", "server down")])
    episode = run(SearchAgent(client, Searcher(), passages, system, task, AgentBudget()))
    assert episode.end == "llm_failure" and episode.proposals == []


def test_pairs_to_grade_per_split():
    agent = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "passage_id": ["b", "a", "c"], "agent_rank": [2, 1, 1]})
    official = pd.DataFrame({"query_id": ["q1", "q2", "q3"], "passage_id": ["a", "z", "y"]})
    train = pairs_to_grade("train", ["q1", "q2"], agent, official)
    assert train.values.tolist() == [["q1", "a", "agent"], ["q1", "b", "agent"], ["q2", "c", "agent"],
                                     ["q1", "a", "official"], ["q2", "z", "official"]]
    dev = pairs_to_grade("dev", ["q1", "q2"], agent, official)
    assert dev.values.tolist()[3:] == [["q2", "z", "official"]]


def test_failed_grade_stays_null(tmp_path):
    (tmp_path / "g.txt").write_text("Query: {query}\nPassage: {passage}\nGrade it.")
    pairs = pd.DataFrame({"query_id": ["q", "q"], "passage_id": ["p1", "p2"], "origin": ["agent", "official"]})
    queries = TextStore(pa.chunked_array([["q"]]), pa.chunked_array([["what"]]))
    passages = TextStore(pa.chunked_array([["p1", "p2"]]), pa.chunked_array([["one", "two"]]))
    table = asyncio.run(grade_pairs(ScriptedClient(grades={"one": "3"}), "train", pairs, queries, passages,
                                    Prompt(tmp_path / "g.txt")))
    assert table.column("grade").to_pylist() == [3, None]
    assert table.column("failure").to_pylist() == [None, "unparseable"]
    assert table.schema.field("grade").type == pa.int8()


def test_answer_passages_rule():
    agent = pd.DataFrame({"query_id": ["q"] * 5, "passage_id": list("abcde"), "agent_rank": [1, 2, 3, 4, 5]})
    grades = pd.DataFrame({"query_id": ["q"] * 6, "passage_id": list("abcdea"),
                           "origin": ["agent"] * 5 + ["official"], "grade": [1, 3, None, 3, 2, 0]})
    assert answer_passages(agent, grades) == {"q": ["b", "d", "e"]}


def test_wood_is_mean_gain_and_null_when_not_finite(tmp_path):
    (tmp_path / "w.txt").write_text("P: {passage}\nQ: {query}")
    (tmp_path / "q.txt").write_text("Q: {query}")
    queries = TextStore(pa.chunked_array([["q", "r"]]), pa.chunked_array([["what", "who"]]))
    passages = TextStore(pa.chunked_array([["a", "b", "c"]]), pa.chunked_array([["A", "B", "C"]]))
    agent = pd.DataFrame({"query_id": ["q", "q", "q", "r"], "passage_id": ["a", "b", "c", "a"],
                          "agent_rank": [1, 2, 3, 1]})
    logprobs = {"Q: what": [-2.0, -4.0], "P: A\nQ: what": [-1.0, -2.0, -0.0],
                "P: B\nQ: what": [-math.inf, -1.0]}
    table, failed = asyncio.run(wood_scores(ScriptedClient(logprobs=logprobs), agent, {"q": "ans"}, queries,
                                            passages, Prompt(tmp_path / "w.txt"), Prompt(tmp_path / "q.txt")))
    assert table.column("wood").to_pylist() == [pytest.approx(-1.0 - -3.0), None, None, None]
    assert failed == 1  # p c's call failed; r has no answer, so it is not scored at all

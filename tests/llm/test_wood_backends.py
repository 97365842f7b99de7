"""WOOD itself (annotate/wood.py, with the workflow's prompts) on the same triples through the in-process
backend, llama-cpp-python's server and a hand computation with transformers: the local backend equals the
hand computation within 1e-3 a token, the server (the same weights, Q4_1 kernels) stays within the
quantisation gap measured in test_llama_server.py."""

import asyncio
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
from test_local_model import _by_hand

from irdata.annotate.passages import TextStore
from irdata.annotate.wood import wood_scores
from irdata.llm import make_client
from irdata.prompts import Prompt

pytestmark = pytest.mark.llm

REPO = Path(__file__).resolve().parents[2]
SMOLLM2_BOS = "<|im_start|>"
QUERIES = {"q1": "what is the capital of peru", "q2": "how many legs does a spider have"}
PASSAGES = {"a": "Lima is the capital and largest city of Peru, on the Pacific coast.",
            "b": "Spiders have eight legs and most have eight eyes.",
            "c": "The violin is the smallest member of its family."}
ANSWERS = {"q1": "The capital of Peru is Lima.", "q2": "A spider has eight legs."}
AGENT = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "passage_id": ["a", "c", "b", "c"],
                      "agent_rank": [1, 2, 1, 2]})


def store(d: dict) -> TextStore:
    return TextStore(pa.chunked_array([list(d)]), pa.chunked_array([list(d.values())]))


def wood(settings) -> tuple[list[float], object]:
    prompts = [Prompt(REPO / f"prompts/wood_{name}.txt") for name in ("with_passage", "query_only")]

    async def go():
        async with make_client({**settings, "max_in_flight": 1}) as c:
            table = await wood_scores(c, AGENT, ANSWERS, store(QUERIES), store(PASSAGES), *prompts)
            return table.column("wood").to_pylist(), c

    return asyncio.run(go())


def test_wood_agrees_across_backends_and_by_hand(local_settings, llama_server):
    local, client = wood({**local_settings, "loglikelihood_bos": "always"})
    model = client._backend(client.settings).m
    with_passage, query_only = (Prompt(REPO / f"prompts/wood_{n}.txt") for n in ("with_passage", "query_only"))
    hand = []
    for q, p in zip(AGENT["query_id"], AGENT["passage_id"]):
        given = _by_hand(model.model, model.tok, with_passage.render(query=QUERIES[q], passage=PASSAGES[p]) + "\n",
                         ANSWERS[q], True)
        alone = _by_hand(model.model, model.tok, query_only.render(query=QUERIES[q]) + "\n", ANSWERS[q], True)
        hand.append(sum(given) / len(given) - sum(alone) / len(alone))
    server, _ = wood({"backend": "openai", "model": "smollm2", "base_urls": [llama_server], "timeout_s": 60,
                      "loglikelihood_bos": "always", "loglikelihood_bos_text": SMOLLM2_BOS})
    print("\nWOOD local / server / by hand:", [(round(a, 4), round(b, 4), round(c, 4))
                                               for a, b, c in zip(local, server, hand)])
    assert all(v is not None for v in local + server)
    assert max(abs(a - b) for a, b in zip(local, hand)) < 1e-3
    assert max(abs(a - b) for a, b in zip(local, server)) < 0.5

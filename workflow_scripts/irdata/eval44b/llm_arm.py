"""The LLM arm: pointwise grades 0-3 of each (review summary, paper) pair through the LLM layer.

The prompt is a template file (prompts/grade_44b_pair.txt in the workflow) with {query} and
{document}. A candidate's score is its grade. A grade that failed (after the layer's retries) is never a
score: it is counted by kind in `failures` (irdata.annotate.common.Failures, as the Doubting stages count
theirs), its candidate's score is None, and arms.score_arm leaves its query out of the ranks and metrics
(`queries_unranked`). The job ends as every LLM job does (finish_job, called by score.run_arm): the arm's
result record is also its stats file, and its retry state makes a plain rerun retry exactly the failed calls
(a failed call is not journaled). The package holds the count to the grade limit (eval44b/package.py).
"""

from __future__ import annotations

from pathlib import Path

from ..annotate.common import Failures, LLMJob, job_llm_settings
from ..grade_scale import CHOICES
from ..llm import SyncClient, journal_path_for
from ..prompts import Prompt
from ..provenance import sha256_file
from .arms import Scorer

# the arm's LLM stage: its llm.stages overrides, and its name in the job's stats
STAGE = "arm44b"


def arm_job(settings: dict) -> LLMJob:
    """The arm's LLM job from its settings: what changes answers (`llm_answer`), the connection from the
    config's `llm:` section (`llm_config`, which changes no answer), the rule's retry state and generation."""
    llm = job_llm_settings(settings["llm_answer"], settings["llm_config"])
    return LLMJob(llm, journal_path_for(llm, "score_arms", "llm"), Path(settings["retry_state"]),
                  int(settings["retry"]))


def arm_llm_job(snakemake) -> LLMJob | None:
    """The score_arms job's LLM job (None for an arm without an LLM): its answer settings and retry state from the
    rule's params, the connection from the config's `llm:` section (as irdata.annotate.common.llm_job)."""
    params = snakemake.params
    if "llm_answer" not in params.settings:
        return None
    return arm_job({**params.settings, "llm_config": snakemake.config["llm"], "retry_state": params.retry_state,
                    "retry": params.retry})


class LlmScorer(Scorer):
    replays = True  # its job's journal answers the calls an earlier run made

    def __init__(self, job: LLMJob, prompt_path, max_queries=None):
        self.job = job
        self.prompt = Prompt(prompt_path)
        self.client = SyncClient(job.settings, job.journal)
        self.stage = STAGE
        self.failures = Failures("pairs")
        self.model_name = job.settings.for_stage(STAGE).model
        self.max_queries = max_queries
        self.prompt_sha256 = sha256_file(prompt_path)

    def messages(self, query: str, document: str) -> list[dict]:
        return [{"role": "user", "content": self.prompt.render(query=query, document=document)}]

    def __call__(self, item) -> list[float | None]:
        results = self.client.grade_many(
            [self.messages(item.query, d) for d in item.docs], choices=CHOICES, stage=self.stage, progress=False
        )
        self.failures.total += len(results)
        for result in results:
            if result.label is None:
                self.failures.add(result.failure_kind)
        return [None if result.label is None else float(result.label) for result in results]

    def replayed_calls(self) -> int:
        return self.client.stats.journal_hits

    def extras(self, result):
        return {"model": self.model_name, "prompt_sha256": self.prompt_sha256, "failures": self.failures.as_dict()}

    def close(self):
        self.client.close()

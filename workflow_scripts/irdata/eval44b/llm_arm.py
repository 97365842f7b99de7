"""The LLM arm: pointwise grades 0-3 of each (review summary, paper) pair through the LLM layer.

The prompt is a template file (prompts/grade_44b_pair.txt in the workflow) with {query} and
{document}. A candidate's score is its grade. A grade that never parsed (after the layer's retries) is not a
0: it is counted in `failures` and the candidate ranks below every graded one (score -1).
"""

from __future__ import annotations

from ..grade_scale import CHOICES
from .arms import Scorer


class LlmScorer(Scorer):
    def __init__(self, llm_answer: dict, llm_config: dict, prompt_path, stage: str = "arm44b", max_queries=None):
        """llm_answer: the arm's LLM answer settings (a rule param); llm_config: the config's `llm:`
        section, of which only the connection settings are read (they change no answer)."""
        from ..llm import SyncClient, connection_settings, journal_path_for, settings_from_parts
        from ..prompts import Prompt
        from ..provenance import sha256_file

        self.prompt = Prompt(prompt_path)
        settings = settings_from_parts(llm_answer, connection_settings(llm_config))
        self.client = SyncClient(settings, journal_path_for(settings, "score_arms", "llm"))
        self.stage = stage
        self.failures = 0
        self.model_name = settings.for_stage(stage).model
        self.max_queries = max_queries
        self.prompt_sha256 = sha256_file(prompt_path)

    def messages(self, query: str, document: str) -> list[dict]:
        return [{"role": "user", "content": self.prompt.render(query=query, document=document)}]

    def __call__(self, item) -> list[float]:
        results = self.client.grade_many(
            [self.messages(item.query, d) for d in item.docs], choices=CHOICES, stage=self.stage, progress=False
        )
        scores = []
        for result in results:
            if result.label is None:
                self.failures += 1
                scores.append(-1.0)
            else:
                scores.append(float(result.label))
        return scores

    def extras(self, result):
        return {"model": self.model_name, "prompt_sha256": self.prompt_sha256, "failures": self.failures}

    def close(self):
        self.client.close()

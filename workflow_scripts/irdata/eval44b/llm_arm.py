"""The LLM arm: pointwise grades 0-3 of each (review summary, paper) pair through the LLM layer.

The prompt is a template file (prompts/grade_44b_pair.txt in the workflow) with {query} and
{document}. A candidate's score is its grade. A grade that never parsed (after the layer's retries) is not a
0: it is counted in `failures` and the candidate ranks below every graded one (score -1).
"""

from __future__ import annotations

CHOICES = ("0", "1", "2", "3")


class LlmScorer:
    def __init__(self, llm_settings, prompt_path, stage: str = "arm44b"):
        from ..llm import SyncClient, journal_path_for, load_settings
        from ..prompts import Prompt

        self.prompt = Prompt(prompt_path)
        settings = load_settings(llm_settings)
        self.client = SyncClient(settings, journal_path_for(settings, "score_arms", "llm"))
        self.stage = stage
        self.failures = 0
        self.model_name = settings.for_stage(stage).model

    def messages(self, query: str, document: str) -> list[dict]:
        return [{"role": "user", "content": self.prompt.render(query=query, document=document)}]

    def __call__(self, query: str, docs: list[str]) -> list[float]:
        results = self.client.grade_many(
            [self.messages(query, d) for d in docs], choices=CHOICES, stage=self.stage, progress=False
        )
        scores = []
        for result in results:
            if result.label is None:
                self.failures += 1
                scores.append(-1.0)
            else:
                scores.append(float(result.label))
        return scores

    def close(self):
        self.client.close()

"""The LLM arm: pointwise grades 0-3 of each (review summary, paper) pair through the LLM layer.

A candidate's score is its grade. A grade that never parsed (after the layer's retries) is not a
0: it is counted in `failures` and the candidate ranks below every graded one (score -1).
"""

from __future__ import annotations

PROMPT = """A peer reviewer wrote the review summary below about one machine-learning paper.
Rate how likely it is that the paper whose title and abstract follow is the paper being reviewed:
3 = certainly this paper: the summary describes its method, setting and findings
2 = probably this paper
1 = related topic, but probably another paper
0 = a different paper

Review summary: {query}

Paper: {document}

Reply with a single digit: 0, 1, 2 or 3."""

CHOICES = ("0", "1", "2", "3")


class LlmScorer:
    def __init__(self, llm_settings, stage: str = "arm44b"):
        from ..llm import SyncClient, journal_path_for, load_settings

        settings = load_settings(llm_settings)
        self.client = SyncClient(settings, journal_path_for(settings, "score_arms", "llm"))
        self.stage = stage
        self.failures = 0
        self.model_name = settings.for_stage(stage).model

    def messages(self, query: str, document: str) -> list[dict]:
        return [{"role": "user", "content": PROMPT.format(query=query, document=document)}]

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

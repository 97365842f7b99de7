"""The LLM token counts kept per call kind (op: chat, grade, loglikelihood): in the LLM client's stats
(irdata.llm.results.Stats.tokens), each LLM job's stats file, and the release gate's sums per stage.
A module of its own, outside irdata.llm, so that the gate reads them without the LLM layer's imports."""

TOKEN_FIELDS = ("calls", "prompt_tokens", "completion_tokens", "cached_prompt_tokens", "calls_without_usage")


def add_tokens(into: dict, counts: dict) -> None:
    """Sum one op's token counts (TOKEN_FIELDS) into another's: stats files summed by stage."""
    for k in TOKEN_FIELDS:
        into[k] = into.get(k, 0) + counts.get(k, 0)

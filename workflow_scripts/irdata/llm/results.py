"""What the LLM layer returns, and how it fails."""

from __future__ import annotations

from dataclasses import dataclass, field

from .actions import ToolCall


@dataclass
class ChatResult:
    text: str
    tool_calls: list[ToolCall]
    raw: dict
    # Set when the reply tried to call a tool but broke the protocol (unknown tool, bad JSON):
    # the agent sees it and can tell the model, rather than the call vanishing.
    protocol_error: str | None = None
    finish_reason: str | None = None


@dataclass
class GradeResult:
    label: str | None  # one of the choices; None when the reply never parsed (never a default 0)
    raw_reply: str
    failure: str | None = None
    failure_kind: str | None = None
    path: str | None = None
    choice_logprobs: dict | None = None


@dataclass
class Stats:
    calls: int = 0  # requests answered by the backend
    journal_hits: int = 0  # calls answered from the journal, not repeated
    retries: int = 0  # transport retries (connection, timeout, 429, 5xx, malformed body)
    failures: int = 0  # calls that ended without an answer, grades that never parsed included
    unparsed_grades: int = 0
    failure_reasons: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return dict(vars(self))


class RequestFailed(Exception):
    """A backend request failed for good (retries exhausted, or the request itself is wrong)."""

    def __init__(self, reason: str, attempts: int = 1):
        super().__init__(reason)
        self.attempts = attempts


class LLMCallError(RuntimeError):
    """One LLM call ended without an answer; counted in client.stats.failures."""

    def __init__(self, op: str, stage: str | None, reason: str, kind: str = "unknown"):
        super().__init__(f"LLM {op} call{f' (stage {stage})' if stage else ''} failed: {reason}")
        self.op = op
        self.stage = stage
        self.reason = reason
        self.kind = kind

"""What the LLM layer returns, how it fails, and what it counts.

Every failure has a `kind`, a short stable class that stats, logs and manifests group by:

- `http_<status>`      the server answered with that status (e.g. http_404, http_500, http_429)
- `timeout`            no answer within llm.timeout_s
- `connection`         refused, reset or cut off before a whole answer arrived
- `outage`             every base URL had been out longer than llm.outage_limit_s (spreading.py);
                       retried by a rerun, like the transport kinds
- `malformed_response` a 200 whose body is not the JSON the API promises
- `unparseable`        a grade reply that never followed the grade grammar (llm.grading)
- `unsupported_model`  the model or server lacks what the call needs (a chat template, single-token
                       grade choices, a BOS token, a constraint the config asks for)
- `misaligned`         a log-likelihood whose continuation cannot be placed on token boundaries,
                       or a server whose echoed log-probabilities cannot be aligned with the prompt
- `tokenizer`          the server's tokenizer endpoint, needed for the call, could not be reached
- `unencodable`        a reply holding a lone surrogate (e.g. JSON "\\ud800"): no UTF-8 for it, so it
                       can be neither journaled nor written; not journaled

A reason (the text beside the kind) names no base URL and no connection setting's value: it may be
written into released files (transports.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..errors import StopError
from ..token_counts import TOKEN_FIELDS
from .actions import ToolCall

# Which way a grade was constrained (GradeResult.path, Stats.grade_paths).
GRADE_PATHS = ("structured_outputs", "logit_bias", "parsed", "local_logprobs")


@dataclass(slots=True)  # fewer objects per result for the garbage collector to walk
class ChatResult:
    text: str
    tool_calls: list[ToolCall]
    raw: dict
    # Set when the reply tried to call a tool but broke the protocol (unknown tool, bad JSON):
    # the agent sees it and can tell the model, rather than the call vanishing.
    protocol_error: str | None = None
    # The server's reason the reply ended: "stop", "tool_calls", or "length" when it was cut at
    # max_tokens (an action cut there is a cut-off action, not a reply that called no tool).
    finish_reason: str | None = None
    # With tools: how the reply was held to a valid action (a tool_grammar.TOOL_PATHS entry).
    constraint: str | None = None


@dataclass(slots=True)
class GradeResult:
    label: str | None  # one of the choices; None when the grade failed (never a default 0)
    raw_reply: str
    failure: str | None = None  # the reason, when label is None
    failure_kind: str | None = None  # the failure's kind (see the module docstring)
    path: str | None = None  # one of GRADE_PATHS: how the answer was constrained
    # Log-probabilities of the choices renormalised over the choices (their probabilities sum
    # to 1), when the backend returned all of them; a confidence the card can report.
    choice_logprobs: dict[str, float] | None = None


def _count(d: dict, key: str, n: int = 1) -> None:
    d[key] = d.get(key, 0) + n


def _by_kind(d: dict) -> str:
    return ", ".join(f"{k}: {v}" for k, v in sorted(d.items(), key=lambda kv: (-kv[1], kv[0])))


@dataclass
class Stats:
    calls: int = 0  # requests answered by the backend
    journal_hits: int = 0  # calls answered from the journal, not repeated
    coalesced: int = 0  # calls that waited on an identical call in flight rather than sending their own
    retries: int = 0  # transport retries (connection, timeout, 429, 5xx, malformed body)
    retries_by_kind: dict = field(default_factory=dict)
    failures: int = 0  # calls that ended without an answer, grades that never parsed included
    failures_by_kind: dict = field(default_factory=dict)
    unparsed_grades: int = 0
    grade_paths: dict = field(default_factory=dict)  # GradeResult.path -> grades answered that way
    # op -> TOKEN_FIELDS counts of the calls the backend made (journal hits and coalesced calls spend
    # nothing); usage is (prompt, completion, cached prompt tokens) or None where the server sent none
    tokens: dict = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic, repr=False)
    ended: float | None = field(default=None, repr=False)

    def retry(self, kind: str) -> None:
        self.retries += 1
        _count(self.retries_by_kind, kind)

    def fail(self, kind: str) -> None:
        self.failures += 1
        _count(self.failures_by_kind, kind)

    def grade_path(self, path: str) -> None:
        _count(self.grade_paths, path)

    def spent(self, op: str, usage: tuple[int, int, int] | None) -> None:
        t = self.tokens.get(op)
        if t is None:
            t = self.tokens[op] = dict.fromkeys(TOKEN_FIELDS, 0)
        t["calls"] += 1
        if usage is None:
            t["calls_without_usage"] += 1
            return
        t["prompt_tokens"] += usage[0]
        t["completion_tokens"] += usage[1]
        t["cached_prompt_tokens"] += usage[2]

    @property
    def elapsed_s(self) -> float:
        return (self.ended if self.ended is not None else time.monotonic()) - self.started

    def as_dict(self) -> dict:
        """The counts (no timing, so that a stage's stats file depends only on what happened)."""
        return {"calls": self.calls, "journal_hits": self.journal_hits, "coalesced": self.coalesced,
                "retries": self.retries, "retries_by_kind": dict(sorted(self.retries_by_kind.items())),
                "failures": self.failures, "failures_by_kind": dict(sorted(self.failures_by_kind.items())),
                "unparsed_grades": self.unparsed_grades, "grade_paths": dict(sorted(self.grade_paths.items())),
                "tokens": {op: dict(t) for op, t in sorted(self.tokens.items())}}

    def summary_line(self) -> str:
        """One line for the end of an LLM job's log."""
        parts = [f"{self.calls} calls", f"{self.journal_hits} journal hits", f"{self.coalesced} coalesced",
                 f"{self.retries} retries" + (f" ({_by_kind(self.retries_by_kind)})" if self.retries else ""),
                 f"{self.failures} failures" + (f" ({_by_kind(self.failures_by_kind)})" if self.failures else "")]
        if self.grade_paths:
            parts.append(f"grade paths ({_by_kind(self.grade_paths)})")
        for op, t in sorted(self.tokens.items()):
            parts.append(f"{op} tokens: {t['prompt_tokens']} prompt ({t['cached_prompt_tokens']} cached), "
                         f"{t['completion_tokens']} completion" +
                         (f", {t['calls_without_usage']} calls without usage" if t["calls_without_usage"] else ""))
        return "LLM: " + ", ".join(parts) + f"; {self.elapsed_s:.1f} s"


class RequestFailed(Exception):
    """A backend request failed for good (retries exhausted, or the request itself is wrong)."""

    def __init__(self, reason: str, kind: str, attempts: int = 1):
        super().__init__(reason)
        self.kind = kind
        self.attempts = attempts


class ServersUnusable(StopError, RuntimeError):
    """No base URL of a job can serve it (wrong URL, model name or key: preflight.py). Not a call
    failure that a stage counts and carries on after: it ends the job, naming each URL and its fix (the job's
    console says that message once, without a traceback: irdata/logs.py)."""


class LLMCallError(RuntimeError):
    """One LLM call ended without an answer; counted in client.stats.failures by its kind."""

    def __init__(self, op: str, stage: str | None, reason: str, kind: str = "unknown"):
        super().__init__(f"LLM {op} call{f' (stage {stage})' if stage else ''} failed [{kind}]: {reason}")
        self.op = op
        self.stage = stage
        self.reason = reason
        self.kind = kind

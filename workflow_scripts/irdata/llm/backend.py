"""What a backend is: the interface the client drives, implemented by LocalBackend and OpenAIBackend."""

from __future__ import annotations

import asyncio
from typing import Protocol


class Backend(Protocol):
    # Bounds the calls in flight on this backend (llm.max_in_flight).
    semaphore: asyncio.Semaphore

    async def execute(self, op: str, request: dict) -> dict:
        """Answer one request, or raise RequestFailed with its kind.

        op "chat":          request {messages, max_tokens, tools?, tool_choice?}
                            -> {text, tool_calls, finish_reason}
        op "grade":         request {messages, choices}
                            -> {reply, path (a GRADE_PATHS entry), choice_logprobs (dict or None)}
        op "loglikelihood": request {context, continuation}
                            -> {logprobs: [float, ...]} (irdata.llm.loglikelihood)
        """
        ...

    def answer_identity(self) -> dict:
        """What determines the answers (part of every journal key): the answer settings, with
        the weights' content hash in place of their path where there are local weights."""
        ...

    def identity(self) -> dict:
        """answer_identity plus what the manifest should show: server, versions, methods."""
        ...

    async def aclose(self) -> None:
        ...


class Once:
    """An async computation done once per job: concurrent callers wait on one attempt; a result
    is kept, an exception is not (the next caller tries again), so a probe that failed for a
    transient reason is retried rather than remembered as a negative answer."""

    def __init__(self, fn):
        self._fn = fn
        self._lock = asyncio.Lock()
        self._done = False
        self.value = None

    @property
    def done(self) -> bool:
        return self._done

    async def get(self):
        if self._done:
            return self.value
        async with self._lock:
            if not self._done:
                self.value = await self._fn()
                self._done = True
        return self.value

"""What a backend is: the interface the client drives, implemented by LocalBackend and OpenAIBackend."""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Awaitable, Protocol


class Slots:
    """At most n holders at once: asyncio.Semaphore's job, with a synchronous fast path (a free
    slot is taken without a coroutine call), which matters at thousands of calls/s.

        if not slots.take():
            await slots.wait()
        try: ...
        finally: slots.release()
    """

    def __init__(self, n: int):
        self.free = n
        self._waiters: deque[asyncio.Future] = deque()

    def take(self) -> bool:
        if self.free > 0 and not self._waiters:
            self.free -= 1
            return True
        return False

    async def wait(self) -> None:
        fut = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        try:
            await fut  # release() hands its slot over by resolving it
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self.release()  # handed a slot, then cancelled: pass it on
            raise

    def release(self) -> None:
        while self._waiters:
            w = self._waiters.popleft()
            if not w.done():
                w.set_result(None)
                return
        self.free += 1


class Backend(Protocol):
    # Bounds the calls in flight on this backend (llm.max_in_flight).
    slots: Slots

    def execute(self, op: str, request: dict, messages: list | None = None,
                encoded: tuple[str, str | None] | None = None, route: str | None = None) -> Awaitable[dict]:
        """An awaitable answering one request, or raising RequestFailed with its kind.

        op "chat":          request {max_tokens, tools?, tool_choice?}, messages
                            -> {text, tool_calls, finish_reason}
        op "grade":         request {choices}, messages -> {reply, path (a GRADE_PATHS entry),
                            choice_logprobs (dict or None)}
        op "loglikelihood": request {context, continuation}
                            -> {logprobs: [float, ...]} (irdata.llm.loglikelihood)

        Each value also has `usage`: (prompt, completion, cached prompt) tokens of the requests
        it made, or None where the server reported none; the client takes it out and counts it.
        `encoded` is (request, messages) as the client encoded them as JSON for the journal
        key, for a backend that sends them on as JSON. `route` is the call's routing key (a
        query id) for a backend that spreads calls over servers (spreading.URLPool.pick).
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

"""The one client every stage uses: journaled, bounded, counted LLM calls over either backend."""

from __future__ import annotations

import asyncio
import gc
import hashlib
import logging
import time
from pathlib import Path

from tqdm import tqdm

from ..grade_scale import CHOICES
from . import actions, tool_grammar
from .grading import GRADE_REASK, parse_grade
from .journal import Journal
from .results import ChatResult, GradeResult, LLMCallError, RequestFailed, Stats
from .settings import LLMSettings
from .spreading import RetryLog
from .transports import encode_json_sorted

log = logging.getLogger(__name__)


# The collector while calls are in flight. With hundreds of calls in flight, CPython's default
# young-generation threshold (700 allocations) runs a collection every few dozen calls, each one
# traversing every in-flight request's objects, and its full collections traverse the job's whole
# heap (its loaded inputs) again and again. So while any client has a request in flight the young
# threshold is raised and the heap that existed before is frozen (gc.freeze: still freed by
# reference counting, only not traversed); when the last request in flight ends both are restored,
# so the job's own work between its calls (reading inputs, writing outputs) runs under the collector
# as the process set it. The collector is process-wide: calls of several clients share one hold.
# freeze and unfreeze move whole generations (constant time), so a hold per burst costs nothing
# measurable. At 256 in flight this cuts a plain aiohttp loop's CPU per call by 14-24%
# (bench/bench_llm_client.py, its bare+gc arm).
GC_YOUNG_THRESHOLD = 10_000
_gc_holds = 0
_gc_restore: tuple = ()


def hold_gc() -> None:
    global _gc_holds, _gc_restore
    if _gc_holds == 0:
        froze = gc.get_freeze_count() == 0  # a process that froze its own heap keeps managing it
        if froze:
            gc.freeze()
        threshold = gc.get_threshold()
        _gc_restore = (threshold, froze)
        gc.set_threshold(max(GC_YOUNG_THRESHOLD, threshold[0]), *threshold[1:])
    _gc_holds += 1


def release_gc() -> None:
    global _gc_holds
    _gc_holds -= 1
    if _gc_holds == 0:
        threshold, froze = _gc_restore
        gc.set_threshold(*threshold)
        if froze:
            gc.unfreeze()


class LLMClient:
    """Async LLM client. Use `make_client(settings, journal_path=...)`; close with `await aclose()`.

    Identical calls in flight at once are sent once (stats.coalesced counts the others). Failed
    calls are never journaled, so a rerun makes exactly those again. A journal that cannot be
    written (a full disk) stops the job: every later call and aclose raise JournalError. On close
    the client logs stats.summary_line() at INFO when it did anything. While a request is in
    flight the collector runs less often (GC_YOUNG_THRESHOLD)."""

    def __init__(self, settings: LLMSettings, journal_path=None):
        self.settings = settings
        self.journal = Journal(journal_path) if journal_path is not None else None
        self.stats = Stats()
        self.retry_log = RetryLog()
        self._backends: dict[str, object] = {}
        self._stages: dict = {}
        self._inflight: dict[str, asyncio.Future] = {}
        self._closed = False

    # -- plumbing ----------------------------------------------------------------------------
    def _stage(self, stage):
        """(settings, backend, journal key prefix per op) of a stage, memoized: this runs on every call."""
        hit = self._stages.get(stage)
        if hit is None:
            s = self.settings.for_stage(stage)
            backend = self._backend(s)
            ident = encode_json_sorted(backend.answer_identity())
            prefixes = {op: f'{{"id":{ident},"op":"{op}"}}' for op in ("chat", "grade", "loglikelihood")}
            hit = self._stages[stage] = (s, backend, prefixes)
        return hit

    def _backend(self, s: LLMSettings):
        key = s.backend_key()
        if key not in self._backends:
            if s.backend == "local":
                from .local import LocalBackend

                self._backends[key] = LocalBackend(s)
            else:
                from .openai_backend import OpenAIBackend

                self._backends[key] = OpenAIBackend(s, self.stats, self.retry_log)
        return self._backends[key]

    def _fail(self, op: str, stage, reason: str, kind: str) -> LLMCallError:
        self.stats.fail(kind)
        return LLMCallError(op, stage, reason, kind)

    async def _call(self, stage, op: str, request: dict, messages: list | None = None,
                    route: str | None = None) -> dict:
        """Answer from the journal, or wait on the identical call in flight, or make the call
        (bounded in flight) and journal it. Request and messages are encoded once, for the key
        and for the wire. A call made counts its tokens: the backend's value carries `usage`,
        which is taken out before anyone sees the value (it depends on the server's cache, not
        on the answer). `route` (a query id) sends the calls of one query to one server, for its
        prefix cache; it is no part of the key."""
        _, backend, prefixes = self._stage(stage)
        request_json = encode_json_sorted(request)
        messages_json = None if messages is None else encode_json_sorted(messages)
        key = hashlib.sha256((prefixes[op] + request_json + (messages_json or "")).encode()).hexdigest()
        if self.journal is not None:
            hit = self.journal.get(key)
            if hit is not None:
                self.stats.journal_hits += 1
                return hit
        inflight = self._inflight
        if key in inflight:
            shared = inflight[key]
            if shared is None:  # the first waiter makes the future the call will resolve
                shared = inflight[key] = asyncio.get_running_loop().create_future()
            self.stats.coalesced += 1
            try:
                return await asyncio.shield(shared)
            except RequestFailed as e:
                raise self._fail(op, stage, str(e), e.kind) from e
        inflight[key] = None  # in flight, nobody waiting yet: no future to make on every call
        slots = backend.slots
        hold_gc()
        try:
            if not slots.take():
                await slots.wait()
            try:
                value = await backend.execute(op, request, messages, (request_json, messages_json), route)
            finally:
                slots.release()
        except BaseException as e:
            release_gc()
            waiting = inflight.pop(key)
            if waiting is not None:
                if isinstance(e, asyncio.CancelledError):
                    waiting.cancel()
                else:
                    waiting.set_exception(e)
            if isinstance(e, RequestFailed):
                raise self._fail(op, stage, str(e), e.kind) from e
            raise
        release_gc()
        self.stats.spent(op, value.pop("usage", None))
        waiting = inflight.pop(key)
        if waiting is not None:
            waiting.set_result(value)
        self.stats.calls += 1
        if self.journal is not None:
            self.journal.append(key, value)
        return value

    # -- operations --------------------------------------------------------------------------
    async def chat(self, messages, tools=None, max_tokens: int | None = None, stage: str | None = None,
                   tool_choice=None, route: str | None = None, choices: dict | None = None) -> ChatResult:
        """One chat turn. With tools, replies may carry tool calls (native or text protocol, per
        llm.tool_protocol), all of them; `tool_choice` (native only) is sent as given ("auto",
        "required", or {"type": "function", "function": {"name": ...}}: what llama-cpp-python
        needs to return any tool call, see openai_backend.py). A text-protocol reply is held to
        one valid action as llm.tool_constraint says (irdata.llm.tool_grammar), its arguments to
        `choices` ({tool: {argument: values}}) where given; ChatResult.constraint names the path
        taken. The tools the model is shown do not change with `choices` (a stable prompt prefix)."""
        s = self._stage(stage)[0]
        request = {"max_tokens": max_tokens or s.max_tokens}
        text_protocol = bool(tools) and s.tool_protocol == "text"
        constraint = (tool_grammar.constraint_path(s.tool_constraint, s.backend, s.tool_protocol, tool_choice)
                      if tools else None)
        if text_protocol:
            messages = actions.to_text_protocol(messages, tools)
            if constraint != "none":
                request["action_schema"] = tool_grammar.action_schema(tools, request["max_tokens"], choices)
        else:
            messages = actions.native_messages(messages)
            if tools:
                request["tools"] = list(tools)
                if tool_choice is not None:
                    request["tool_choice"] = tool_choice
        value = await self._call(stage, "chat", request, messages, route)
        if text_protocol:
            text, calls, error = actions.parse_action(value["text"], tools)
        else:
            text = value["text"]
            calls, error = actions.parse_native(value["tool_calls"])
        return ChatResult(text, calls, value, error, value.get("finish_reason"), constraint)

    async def grade(self, messages, choices=CHOICES, stage: str | None = None, route: str | None = None) -> GradeResult:
        """A grade among `choices`, constrained as llm.grade_constraint and the server allow
        (GradeResult.path). A reply outside the grade grammar (irdata.llm.grading) is asked
        again up to llm.grade_retries times, then returned as a counted `unparseable` failure
        with label None."""
        s = self._stage(stage)[0]
        choices = tuple(choices)
        convo = list(messages)
        replies = []
        path = None
        for _ in range(s.grade_retries + 1):
            try:
                value = await self._call(stage, "grade", {"choices": list(choices)}, convo, route)
            except LLMCallError as e:  # already counted; a grade batch carries on
                return GradeResult(None, replies[-1] if replies else "", e.reason, e.kind, path)
            reply, path = value["reply"], value["path"]
            replies.append(reply)
            label = parse_grade(reply, choices)
            if label is not None:
                self.stats.grade_path(path)
                return GradeResult(label, reply, path=path, choice_logprobs=value.get("choice_logprobs"))
            convo = [*convo, {"role": "assistant", "content": reply}, {"role": "user", "content": GRADE_REASK}]
        self.stats.unparsed_grades += 1
        reason = (f"unparseable grade: no reply of {len(replies)} followed the grade grammar for {choices}, "
                  f"last {replies[-1][:80]!r}")
        self._fail("grade", stage, reason, "unparseable")
        return GradeResult(None, replies[-1], reason, "unparseable", path)

    async def loglikelihood(self, context: str, continuation: str, stage: str | None = None,
                            route: str | None = None) -> list[float]:
        """Per-token natural-log probabilities of `continuation` given BOS + `context`
        (the contract: irdata.llm.loglikelihood)."""
        value = await self._call(stage, "loglikelihood", {"context": context, "continuation": continuation},
                                 route=route)
        return value["logprobs"]

    # -- batches -----------------------------------------------------------------------------
    async def _many(self, fn, items, stage, desc, on_error, progress, routes=None):
        """Run fn(item, route) for all items, at most max_in_flight at once, results in input
        order; routes[i] is item i's routing key (None: no routes). on_error="raise" raises the
        first failure after all items ran; "return" leaves the LLMCallError in its slot."""
        if on_error not in ("raise", "return"):
            raise ValueError("on_error must be 'raise' or 'return'")
        items = list(items)
        routes = [None] * len(items) if routes is None else list(routes)
        if len(routes) != len(items):
            raise ValueError(f"{len(routes)} routes for {len(items)} calls")
        results: list = [None] * len(items)
        width = min(self.settings.for_stage(stage).max_in_flight, len(items)) or 1
        it = iter(range(len(items)))
        # No bar at all without progress: even a disabled tqdm starts its monitor thread.
        bar = tqdm(total=len(items), desc=desc, mininterval=1.0, unit="call") if progress else None

        async def worker():
            for i in it:
                try:
                    results[i] = await fn(items[i], routes[i])
                except LLMCallError as e:
                    results[i] = e
                if bar is not None:
                    bar.update(1)

        try:
            await asyncio.gather(*(worker() for _ in range(width)))
        finally:
            if bar is not None:
                bar.close()
        if on_error == "raise":
            failed = [r for r in results if isinstance(r, LLMCallError)]
            if failed:
                raise LLMCallError(failed[0].op, stage,
                                   f"{len(failed)} of {len(items)} calls failed; first: {failed[0].reason}",
                                   failed[0].kind)
        return results

    # `routes`: one routing key (the query id) per call, or None; see _call.
    async def chat_many(self, conversations, tools=None, max_tokens=None, stage=None, on_error="raise",
                        progress=True, tool_choice=None, routes=None) -> list[ChatResult]:
        return await self._many(
            lambda m, r: self.chat(m, tools=tools, max_tokens=max_tokens, stage=stage, tool_choice=tool_choice,
                                   route=r),
            conversations, stage, f"chat[{stage or 'llm'}]", on_error, progress, routes)

    async def grade_many(self, conversations, choices=CHOICES, stage=None,
                         progress=True, routes=None) -> list[GradeResult]:
        """Failures come back as GradeResults with label None (already counted), never raised."""
        return await self._many(lambda m, r: self.grade(m, choices=choices, stage=stage, route=r),
                                conversations, stage, f"grade[{stage or 'llm'}]", "raise", progress, routes)

    async def loglikelihood_many(self, pairs, stage=None, on_error="raise", progress=True,
                                 routes=None) -> list[list[float]]:
        return await self._many(lambda p, r: self.loglikelihood(p[0], p[1], stage=stage, route=r),
                                pairs, stage, f"loglikelihood[{stage or 'llm'}]", on_error, progress, routes)

    # -- identity ----------------------------------------------------------------------------
    def identity(self, stage: str | None = None) -> dict:
        """Model, backend, server version and decoding settings for the manifest (never the key)."""
        ident = dict(self._stage(stage)[1].identity())
        if stage is None and self.settings.stages:
            ident["stages"] = {st: self._stage(st)[1].identity() for st in self.settings.stages}
        return ident

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.stats.ended = time.monotonic()
        self.retry_log.flush()
        st = self.stats
        if st.calls or st.journal_hits or st.failures:
            log.info("%s", st.summary_line())
        for b in self._backends.values():
            await b.aclose()
        if self.journal is not None:
            self.journal.close()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        await self.aclose()


def make_client(settings, journal_path: str | Path | None = None) -> LLMClient:
    """A client for an `llm:` config section (dict, validated here) or LLMSettings (e.g. from
    settings_from_parts). journal_path: the job's journal (journal_path_for(settings, rule,
    shard)); None: no journal."""
    from .settings import load_settings

    if not isinstance(settings, LLMSettings):
        settings = load_settings(settings)
    return LLMClient(settings, journal_path)


def journal_path_for(settings: LLMSettings, *job: str) -> Path:
    """The journal of one job, e.g. journal_path_for(s, "grade", "shard-007")."""
    return Path(settings.journal_dir) / ("-".join(job) + ".jsonl")


class SyncClient:
    """Blocking wrapper for scripts: each method runs the async one to completion."""

    def __init__(self, settings, journal_path=None):
        self._loop = asyncio.new_event_loop()
        self.client = make_client(settings, journal_path)

    def __getattr__(self, name):
        attr = getattr(self.client, name)
        if asyncio.iscoroutinefunction(attr):
            return lambda *a, **kw: self._loop.run_until_complete(attr(*a, **kw))
        return attr

    def close(self) -> None:
        try:
            self._loop.run_until_complete(self.client.aclose())
        finally:  # aclose raises when the journal could not be written
            self._loop.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

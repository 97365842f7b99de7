"""Spreading requests over base URLs, by health, with retries.

Each URL has a circuit breaker. Closed: it takes requests, the least busy URL first (round robin
among equals). After llm.breaker_failures consecutive transient failures it opens: it takes no
requests for breaker_cooldown_s, so its share goes to the healthy URLs (least-busy picking alone
would favour a dead URL, which answers fastest). When the cool-down ends one request probes it
(half-open): success closes it, failure opens it again for twice as long, up to backoff_max_s.
A retry goes to another healthy URL when there is one, after exponential backoff with full
jitter (a server's Retry-After wins when longer). When every URL is open, requests wait for the
first to reopen; waiting spends no attempt. 429 is load, not ill health: it is retried but does
not count towards the breaker. A failure of a request sent before its URL's breaker opened does not
lengthen the cool-down: only a failed probe does, so a server back from a restart is probed soon.

Outages. When every URL is out (its breaker open), calls wait for one to answer again, up to
llm.outage_limit_s from the moment the last one went out; past it the remaining calls fail at once
as `outage` (retryable: the release gate counts them, a rerun retries them), while half-open probes
go on, so a server that comes back is used again. URLs refused by the servers' check (preflight.py)
are dropped from the pool; a URL that fails a per-URL check of one kind of call (URLGate: the echo
alignment of log-likelihoods) serves no call of that kind. When every URL is refused for a kind of
call, or refused or unreachable since the job started (found so by the servers' check, no answer
since), those calls fail at once with the refusal: no server is going away and coming back, so
there is no outage to wait out and the fix is the refusal's.

A call with a routing key (its query id) goes to the URL the key hashes to (rendezvous hashing:
the highest hash of URL and key among the healthy URLs), so the calls of one query, made by
different jobs at different times, meet the prefix cache of one server (vLLM's automatic prefix
caching is per server); when that URL is open, or has ROUTE_SLACK more calls in flight than the
least busy one, the call goes to the least busy healthy URL instead (llm.routing: least_busy
sends every call there). Routing changes which server answers, never the answer.

Retries are logged at INFO with their reason, aggregated: at most one line a minute per client.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import time

from .backend import Once
from .results import RequestFailed, Stats
from .settings import LLMSettings
from .transports import TransientError

log = logging.getLogger(__name__)

RETRY_LOG_INTERVAL_S = 60.0
_REFUSED = object()  # an attempt that a URLGate turned away
# How many more calls in flight than the least busy URL a routed call's own URL may have before the
# call goes to the least busy one: the bound on the imbalance that routing for the cache may cause.
ROUTE_SLACK = 8


def _rendezvous(url: str, route: str) -> int:
    return int.from_bytes(hashlib.blake2b(f"{url}\0{route}".encode(), digest_size=8).digest(), "big")


class RetryLog:
    """Retries counted by (kind, URL) and logged at most once per interval."""

    def __init__(self, interval_s: float = RETRY_LOG_INTERVAL_S):
        self.interval_s = interval_s
        self._pending: dict[tuple[str, str], int] = {}
        self._last = -float("inf")

    def note(self, kind: str, url: str) -> None:
        self._pending[(kind, url)] = self._pending.get((kind, url), 0) + 1
        if time.monotonic() - self._last >= self.interval_s:
            self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        since = time.monotonic() - self._last
        window = f"in the last {since:.0f} s" if since < 1e9 else "so far"
        total = sum(self._pending.values())
        detail = ", ".join(f"{k} at {u}: {n}" for (k, u), n in sorted(self._pending.items(), key=lambda kv: -kv[1]))
        log.info("LLM retries %s: %d (%s)", window, total, detail)
        self._pending.clear()
        self._last = time.monotonic()


class URLGate:
    """A check each base URL must pass before it serves one kind of call (e.g. the echo alignment
    before log-likelihoods): run once per URL, when a call of that kind first picks it.

    check(url) returns None (passed) or the RequestFailed that refuses the URL; a TransientError
    from it counts as a failed attempt on that URL and the check is tried again later. A refused
    URL is left out for these calls (logged, with the URL); when every URL is refused, or refused or
    `never_answered` (URLPool), the calls fail with the refusals, which name no URL."""

    def __init__(self, check, what: str):
        self._check = check
        self.what = what
        self.passed: set[str] = set()
        self.refused: dict[str, RequestFailed] = {}
        self._once: dict[str, Once] = {}
        self._closed_logged = False

    async def admit(self, url: str) -> bool:
        once = self._once.get(url)
        if once is None:
            once = self._once[url] = Once(lambda: self._check(url))
        problem = await once.get()
        if problem is None:
            self.passed.add(url)
            return True
        if url not in self.refused:
            self.refused[url] = problem
            log.warning("LLM server %s serves no %s: %s", url, self.what, problem)
        return False

    def closed(self, urls, never_answered=()) -> RequestFailed | None:
        """The failure of every call when every URL is refused, or refused or in `never_answered`,
        else None. Its reason is the refusals' own, the same however many URLs gave them."""
        if not self.refused or any(u not in self.refused and u not in never_answered for u in urls):
            return None
        if not self._closed_logged:
            self._closed_logged = True
            dead = [u for u in urls if u not in self.refused]
            log.error("no LLM server can serve %s: %s refused%s; these calls fail at once", self.what,
                      ", ".join(u for u in urls if u in self.refused),
                      f", {', '.join(dead)} unreachable since the job started" if dead else "")
        refusals = sorted({(e.kind, str(e)) for u, e in self.refused.items() if u in urls})
        return RequestFailed("; ".join(reason for _, reason in refusals), refusals[0][0])


class _Health:
    __slots__ = ("in_flight", "failures", "open_until", "cooldown", "probing")

    def __init__(self):
        self.in_flight = 0
        self.failures = 0  # consecutive transient failures
        self.open_until = 0.0  # > 0: the breaker is open (or half-open once the time has passed)
        self.cooldown = 0.0
        self.probing = False


class URLPool:
    """The base URLs of one backend, their health, and the retry loop around one request."""

    def __init__(self, settings: LLMSettings, transport, stats: Stats, retry_log: RetryLog):
        self.s = settings
        self.transport = transport
        self.stats = stats
        self.retry_log = retry_log
        self.urls = [u.rstrip("/") for u in settings.base_urls]
        self.health = [_Health() for _ in self.urls]
        self.route_by_query = settings.routing == "query"
        self._next = 0
        self.out_since: float | None = None  # when the last URL went out, while every URL is out
        self._outage_logged = False
        # URLs the servers' check found unreachable and that have not answered since: dead, not out
        self.never_answered: set[str] = set()

    def leave_out(self, urls) -> None:
        """Drop these URLs for the job (refused by the servers' check, before any call)."""
        keep = [i for i, u in enumerate(self.urls) if u not in urls]
        self.urls = [self.urls[i] for i in keep]
        self.health = [self.health[i] for i in keep]
        self._next = 0

    def set_out(self, urls) -> None:
        """Open the breaker of these URLs, as if they had just failed (found unreachable by the
        servers' check): they are probed after the cool-down and taken back when they answer."""
        now = time.monotonic()
        for u, h in zip(self.urls, self.health):
            if u in urls:
                h.cooldown = self.s.breaker_cooldown_s
                h.open_until = now + h.cooldown
                self.never_answered.add(u)
        self._note_out()

    def _note_out(self) -> None:
        if self.out_since is None and all(h.open_until for h in self.health):
            self.out_since = time.monotonic()
            self._outage_logged = False
            log.warning("every LLM server is out (%s); calls wait up to llm.outage_limit_s (%g s) for one to "
                        "answer again", ", ".join(self.urls), self.s.outage_limit_s)

    def _outage(self, attempts: int, last, stalled: float | None = None) -> RequestFailed | None:
        """The failure of a call once every URL has been out longer than llm.outage_limit_s, or the
        call has found no URL to try (`stalled`: since when) for that long: every URL it may use is
        out, though others (refused by its gate) are not."""
        now = time.monotonic()
        out = max(now - self.out_since if self.out_since is not None else 0.0,
                  now - stalled if stalled is not None else 0.0)
        if out < self.s.outage_limit_s or (self.out_since is None and stalled is None):
            return None
        if not self._outage_logged:
            self._outage_logged = True
            log.error("every LLM server (%s) has been out for %.0f s, longer than llm.outage_limit_s (%g s; last "
                      "error: %s): the remaining calls fail as `outage`; rerun after the servers are back",
                      ", ".join(self.urls), out, self.s.outage_limit_s, last)
        # one reason for every such call: which error a call saw last depends on timing
        return RequestFailed("outage: no LLM server could take the call for longer than llm.outage_limit_s",
                             "outage", attempts)

    # -- health ------------------------------------------------------------------------------
    def pick(self, avoid: int | None = None, exclude=(), route: str | None = None) -> int | None:
        """The URL for the next attempt, or None when every URL is open (or being probed) or in
        `exclude` (URLs refused by a URLGate); `route`: the call's routing key (see the module doc)."""
        n = len(self.urls)
        if n == 1 and not self.health[0].open_until and not exclude:  # the common case, on every call
            return 0
        now = time.monotonic()
        eligible = [i for i in range(n) if (self.health[i].open_until == 0.0
                    or (now >= self.health[i].open_until and not self.health[i].probing))
                    and self.urls[i] not in exclude]
        if avoid is not None and len(eligible) > 1 and avoid in eligible:
            eligible.remove(avoid)
        if not eligible:
            return None
        if len(eligible) == 1:
            i = eligible[0]
        else:
            start = self._next
            self._next = (self._next + 1) % n
            i = min(eligible, key=lambda j: (self.health[j].in_flight, (j - start) % n))
            if route is not None and self.route_by_query:
                hashed = max(eligible, key=lambda j: _rendezvous(self.urls[j], route))
                if self.health[hashed].in_flight <= self.health[i].in_flight + ROUTE_SLACK:
                    i = hashed
        h = self.health[i]
        if h.open_until:
            h.probing = True  # half-open: this request is the probe
        return i

    def _wait_s(self, exclude=(), stalled: float | None = None) -> float:
        now = time.monotonic()
        reopen = [h.open_until for u, h in zip(self.urls, self.health) if not h.probing and u not in exclude]
        wait = max(0.01, min(reopen) - now) if reopen else 0.05
        since = min(t for t in (self.out_since, stalled, now) if t is not None)
        return min(wait, max(0.01, since + self.s.outage_limit_s - now))  # wake up when the limit ends the wait

    def _ok(self, i: int) -> None:
        h = self.health[i]
        self.never_answered.discard(self.urls[i])
        if h.open_until:
            log.info("LLM server %s answers again; it takes requests again", self.urls[i])
        h.failures, h.open_until, h.cooldown, h.probing = 0, 0.0, 0.0, False
        if self.out_since is not None:
            log.warning("LLM server %s answers again after %.0f s with every server out", self.urls[i],
                        time.monotonic() - self.out_since)
            self.out_since = None

    def _failed(self, i: int, e: TransientError) -> None:
        if e.kind == "http_429":
            self.health[i].probing = False
            return
        h = self.health[i]
        h.failures += 1
        if h.probing or (not h.open_until and h.failures >= self.s.breaker_failures):
            first = not h.open_until
            h.cooldown = min(self.s.backoff_max_s, max(h.cooldown * 2, self.s.breaker_cooldown_s))
            h.open_until = time.monotonic() + h.cooldown
            if first:
                log.warning("LLM server %s failed %d times in a row (last: %s); left out for %.1f s, then probed",
                            self.urls[i], h.failures, e, h.cooldown)
            self._note_out()
        h.probing = False

    # -- requests ----------------------------------------------------------------------------
    async def _retrying(self, attempt, *args, finish=None, gate: URLGate | None = None, route=None):
        """`await attempt(base URL, *args)` on the healthiest URL until it raises no
        TransientError, at most 1 + llm.max_retries times; finish(result) when given. With a
        gate, only on URLs that passed its check (run on a URL's first pick).

        The transport's coroutine is awaited here directly and the caller's post-processing
        runs as `finish`: every frame between a call and the socket is resumed on every
        network event, which costs measurably at thousands of calls/s."""
        attempt_no = 0
        last = None
        last_error = None
        exclude = gate.refused if gate is not None else ()
        stalled = None  # since when this call has found no URL to try but open ones
        while True:
            i = self.pick(avoid=last, exclude=exclude, route=route)
            if i is None:
                stalled = stalled or time.monotonic()
                failed = (self._outage(attempt_no + 1, last_error, stalled)
                          or (gate is not None and gate.closed(self.urls, self.never_answered)))
                if failed:
                    raise failed
                await asyncio.sleep(self._wait_s(exclude, stalled))
                continue
            h = self.health[i]
            if not h.open_until:  # a healthy URL; a probe of an open one is part of the wait
                stalled = None
            h.in_flight += 1
            try:
                if gate is not None and self.urls[i] not in gate.passed and not await gate.admit(self.urls[i]):
                    result = _REFUSED
                else:
                    result = await attempt(self.urls[i], *args)
            except TransientError as e:
                h.in_flight -= 1
                self._failed(i, e)
                last_error = e
                failed = self._outage(attempt_no + 1, e, stalled)
                if failed:
                    raise failed from e
                if attempt_no >= self.s.max_retries:  # the count stays out of the reason: it is a connection setting
                    raise RequestFailed(f"{e} (every retry failed too)", e.kind, attempt_no + 1) from e
                delay = random.uniform(0, min(self.s.backoff_max_s, self.s.backoff_s * 2 ** attempt_no))
                if e.retry_after is not None:
                    delay = max(delay, min(e.retry_after, self.s.backoff_max_s))
                attempt_no += 1
                last = i
                self.stats.retry(e.kind)
                self.retry_log.note(e.kind, self.urls[i])
                await asyncio.sleep(delay)
                continue
            except BaseException:
                h.in_flight -= 1
                h.probing = False  # a cancelled or refused probe proves nothing
                raise
            h.in_flight -= 1
            if result is _REFUSED:  # the gate left this URL out: try another, or fail when none is left
                h.probing = False
                failed = gate.closed(self.urls, self.never_answered)
                if failed:
                    raise failed
                continue
            if h.open_until or h.failures:
                self._ok(i)
            return result if finish is None else finish(result)

    def post(self, kind: str, fields: dict, messages=None, finish=None, fields_json: str | None = None,
             messages_json: str | None = None, gate: URLGate | None = None, route: str | None = None):
        """POST a /v1 request (`chat` or `completions`), retried on the healthiest URLs (those
        `gate` admits, when given); an awaitable of the decoded answer, or of finish(answer). The
        JSON texts, when given, are the fields and messages already encoded (transports.py);
        `route`: see pick."""
        return self._retrying(self.transport.post, kind, fields, messages, fields_json, messages_json, finish=finish,
                              gate=gate, route=route)

    async def _raw(self, base_url: str, path: str, payload: dict) -> tuple[int, bytes]:
        status, body = await self.transport.post_raw(base_url, path, payload)
        if status == 429 or status >= 500:
            raise TransientError(f"HTTP {status} on {path}", f"http_{status}")
        return status, body

    def post_raw(self, path: str, payload: dict):
        """POST to a server path outside /v1 (e.g. /tokenize), retried like post(); awaits to
        (status, body) of the first answer that is not a transient failure."""
        return self._retrying(self._raw, path, payload)

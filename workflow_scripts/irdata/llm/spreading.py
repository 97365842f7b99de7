"""Spreading requests over base URLs, by health, with retries.

Each URL has a circuit breaker. Closed: it takes requests, the least busy URL first (round robin
among equals). After llm.breaker_failures consecutive transient failures it opens: it takes no
requests for breaker_cooldown_s, so its share goes to the healthy URLs (least-busy picking alone
would favour a dead URL, which answers fastest). When the cool-down ends one request probes it
(half-open): success closes it, failure opens it again for twice as long, up to backoff_max_s.
A retry goes to another healthy URL when there is one, after exponential backoff with full
jitter (a server's Retry-After wins when longer). When every URL is open, requests wait for the
first to reopen; waiting spends no attempt. 429 is load, not ill health: it is retried but does
not count towards the breaker.

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

from .results import RequestFailed, Stats
from .settings import LLMSettings
from .transports import TransientError

log = logging.getLogger(__name__)

RETRY_LOG_INTERVAL_S = 60.0
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

    # -- health ------------------------------------------------------------------------------
    def pick(self, avoid: int | None = None, route: str | None = None) -> int | None:
        """The URL for the next attempt, or None when every URL is open (or being probed);
        `route`: the call's routing key (see the module doc)."""
        n = len(self.urls)
        if n == 1 and not self.health[0].open_until:  # the common case, on every call
            return 0
        now = time.monotonic()
        eligible = [i for i in range(n) if self.health[i].open_until == 0.0
                    or (now >= self.health[i].open_until and not self.health[i].probing)]
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

    def _wait_s(self) -> float:
        now = time.monotonic()
        reopen = [h.open_until for h in self.health if not h.probing]
        return max(0.01, min(reopen) - now) if reopen else 0.05

    def _ok(self, i: int) -> None:
        h = self.health[i]
        if h.open_until:
            log.info("LLM server %s answers again; it takes requests again", self.urls[i])
        h.failures, h.open_until, h.cooldown, h.probing = 0, 0.0, 0.0, False

    def _failed(self, i: int, e: TransientError) -> None:
        if e.kind == "http_429":
            self.health[i].probing = False
            return
        h = self.health[i]
        h.failures += 1
        if h.probing or h.failures >= self.s.breaker_failures:
            first = not h.open_until
            h.cooldown = min(self.s.backoff_max_s, max(h.cooldown * 2, self.s.breaker_cooldown_s))
            h.open_until = time.monotonic() + h.cooldown
            if first:
                log.warning("LLM server %s failed %d times in a row (last: %s); left out for %.1f s, then probed",
                            self.urls[i], h.failures, e, h.cooldown)
        h.probing = False

    # -- requests ----------------------------------------------------------------------------
    async def _retrying(self, attempt, *args, finish=None, route=None):
        """`await attempt(base URL, *args)` on the healthiest URL until it raises no
        TransientError, at most 1 + llm.max_retries times; finish(result) when given.

        The transport's coroutine is awaited here directly and the caller's post-processing
        runs as `finish`: every frame between a call and the socket is resumed on every
        network event, which costs measurably at thousands of calls/s."""
        attempt_no = 0
        last = None
        while True:
            i = self.pick(avoid=last, route=route)
            if i is None:
                await asyncio.sleep(self._wait_s())
                continue
            h = self.health[i]
            h.in_flight += 1
            try:
                result = await attempt(self.urls[i], *args)
            except TransientError as e:
                h.in_flight -= 1
                self._failed(i, e)
                if attempt_no >= self.s.max_retries:
                    raise RequestFailed(f"{e} (gave up after {attempt_no + 1} attempts)", e.kind,
                                        attempt_no + 1) from e
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
            if h.open_until or h.failures:
                self._ok(i)
            return result if finish is None else finish(result)

    def post(self, kind: str, fields: dict, messages=None, finish=None, fields_json: str | None = None,
             messages_json: str | None = None, route: str | None = None):
        """POST a /v1 request (`chat` or `completions`), retried on the healthiest URLs; an
        awaitable of the decoded answer, or of finish(answer). The JSON texts, when given, are
        the fields and messages already encoded (transports.py); `route`: see pick."""
        return self._retrying(self.transport.post, kind, fields, messages, fields_json, messages_json, finish=finish,
                              route=route)

    async def _raw(self, base_url: str, path: str, payload: dict) -> tuple[int, bytes]:
        status, body = await self.transport.post_raw(base_url, path, payload)
        if status == 429 or status >= 500:
            raise TransientError(f"HTTP {status} from {base_url.removesuffix('/v1')}{path}", f"http_{status}")
        return status, body

    def post_raw(self, path: str, payload: dict):
        """POST to a server path outside /v1 (e.g. /tokenize), retried like post(); awaits to
        (status, body) of the first answer that is not a transient failure."""
        return self._retrying(self._raw, path, payload)

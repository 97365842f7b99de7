"""The check of a job's base URLs before its first call: a job that no server can serve stops in seconds.

Each URL is asked GET <base>/models once (vLLM and llama-cpp-python list the served model ids there):

- 200 with llm.model among the served ids: usable;
- 200 without it: refused (wrong model name; the served ids are named);
- 401 or 403: refused (the key: llm.api_key_env);
- 404: a server without /v1/models, used unchecked (logged);
- a connection error: unreachable;
- 429, 5xx and timeouts are asked again (CHECK_ATTEMPTS in all), then the URL is used unchecked:
  a loaded or slow server is not a broken one, and the calls' own retries take over.

A refused URL is left out for the job. An unreachable one, when another URL can serve, starts with
its breaker open: it is probed later like any URL that went away, so a server still starting is
taken in once it answers. Each left-out URL gets one WARNING line (the URL, what failed, the fix).
When no URL can serve, every call of the job raises ServersUnusable naming each URL and its fix: an
error that ends the job, not a call failure the stages count and carry on after.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass

from .results import ServersUnusable
from .transports import TransientError

log = logging.getLogger(__name__)

CHECK_ATTEMPTS = 3
CHECK_BACKOFF_S = 0.5  # before the second attempt; doubled before the third
CHECK_TIMEOUT_S = 10.0  # at most, per attempt (llm.timeout_s when shorter)
UNREACHABLE_FIX = "is the server up? is the port right?"


@dataclass(frozen=True)
class Verdict:
    url: str
    state: str  # ok | unchecked | refused | unreachable
    problem: str = ""
    fix: str = ""

    @property
    def serves(self) -> bool:
        return self.state in ("ok", "unchecked")

    def line(self) -> str:
        return f"{self.url}: {self.problem}: {self.fix}"


def _served_ids(body: bytes) -> list[str] | None:
    try:
        data = json.loads(body)
        return [str(m["id"]) for m in data["data"]]
    except (ValueError, KeyError, TypeError):
        return None


def judge(url: str, status: int, body: bytes, model: str, key_env: str | None) -> Verdict:
    """What one answer of GET <url>/models says about the URL (a transient status aside)."""
    if status in (401, 403):
        fix = (f"set ${key_env} (llm.api_key_env) to the key the server was started with" if key_env else
               "the server wants an API key: put it in an environment variable and name that variable in "
               "llm.api_key_env")
        return Verdict(url, "refused", f"the server refused the API key (HTTP {status})", fix)
    if status == 404:
        return Verdict(url, "unchecked", "no /v1/models (HTTP 404): the model name and key are not checked")
    if status != 200:
        return Verdict(url, "unchecked", f"GET /v1/models answered HTTP {status}: the model name is not checked")
    ids = _served_ids(body)
    if ids is None:
        return Verdict(url, "unchecked", "GET /v1/models gave no model list: the model name is not checked")
    if model not in ids:
        served = ", ".join(map(repr, ids)) or "none"
        return Verdict(url, "refused", f"model {model!r} is not served (served: {served})",
                       "set llm.model to a served name (vLLM: --served-model-name)")
    return Verdict(url, "ok")


async def check_url(transport, url: str, model: str, key_env: str | None, timeout_s: float) -> Verdict:
    """The verdict on one base URL; transient answers are asked again, then give `unchecked`."""
    last: TransientError | None = None
    for attempt in range(CHECK_ATTEMPTS):
        if attempt:
            await asyncio.sleep(CHECK_BACKOFF_S * 2 ** (attempt - 1))
        try:
            status, body = await transport.get_raw(url, "/models", min(CHECK_TIMEOUT_S, timeout_s))
        except TransientError as e:
            last = e
            continue
        if status == 429 or status >= 500:
            last = TransientError(f"HTTP {status}", f"http_{status}")
            continue
        return judge(url, status, body, model, key_env)
    if last.kind == "connection":
        return Verdict(url, "unreachable", f"unreachable ({last})", UNREACHABLE_FIX)
    return Verdict(url, "unchecked", f"GET /v1/models failed {CHECK_ATTEMPTS} times ({last}): not checked")


async def check_servers(pool, model: str, key_env: str | None) -> ServersUnusable | None:
    """Check every URL of `pool` at once; leave out the refused ones and open the breaker of the
    unreachable ones (when another URL serves). None, or the error every call of the job raises."""
    verdicts = await asyncio.gather(*(check_url(pool.transport, u, model, key_env, pool.s.timeout_s)
                                      for u in pool.urls))
    if not any(v.serves for v in verdicts):
        return ServersUnusable("no LLM server can serve this job (each of llm.base_urls was checked with "
                               "GET /v1/models):\n  " + "\n  ".join(v.line() for v in verdicts))
    for v in verdicts:
        if v.state == "refused":
            log.warning("LLM server %s left out for this job: %s; %s", v.url, v.problem, v.fix)
        elif v.state == "unreachable":
            log.warning("LLM server %s left out until it answers (probed like a failing URL): %s; %s",
                        v.url, v.problem, v.fix)
        elif v.state == "unchecked":
            log.info("LLM server %s used unchecked: %s", v.url, v.problem)
    pool.leave_out([v.url for v in verdicts if v.state == "refused"])
    pool.set_out([v.url for v in verdicts if v.state == "unreachable"])
    return None

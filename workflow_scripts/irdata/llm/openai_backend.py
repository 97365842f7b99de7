"""Backend `openai`: any OpenAI-compatible server (vLLM in production, llama-cpp-python in tests).

This module builds the payloads of the three operations and learns, once per job, what the
server can do; transports.py carries the requests and spreading.py spreads and retries them.
Before the first call the base URLs are checked (preflight.py): a job that no URL can serve
fails at once with ServersUnusable.

Grades (llm.grade_constraint) are held to the choices by the first of these that a probe
request shows to work: vLLM structured outputs (`structured_outputs: {"choice": [...]}`; before
vLLM 0.12 `guided_choice: [...]`), then logit_bias on the choices' token ids (each checked to
be one token without BOS: vLLM's /tokenize with add_special_tokens false; llama-cpp-python's
/extras/tokenize, whose BOS is stripped), else free replies parsed by the grade grammar. The
path is recorded per grade; a fallback is logged once. Constrained grades ask for the first
position's top-20 log-probabilities; when all choices are among them, their distribution
renormalised over the choices is kept (GradeResult.choice_logprobs). Both servers report the
model's raw log-probabilities there (vLLM's default --logprobs-mode raw_logprobs,
llama-cpp-python always), so a model that would not start its reply with a digit (SmolLM2)
gets None.

Log-likelihoods use /v1/completions (echo=True, logprobs=1, max_tokens=1: vLLM refuses 0 and
llama-cpp-python reads 0 as unlimited) or vLLM's prompt_logprobs, aligned by
loglikelihood.align_echo. Before a base URL serves its first, its alignment is checked against
its own generation: the log-probability the server reports for a token it generates must be the
one the echo path reads for that token appended to the prompt. llama-cpp-python 0.3.36 fails
this unless the prompt starts with BOS (it scores each echoed token with the distribution after
it). A misaligned URL serves no log-likelihood (logged, with the URL) while others are aligned; when
none is (or the others have been unreachable since the job started), every log-likelihood fails at
once as `misaligned`, naming the setting that fixes it.

Native tool calls on llama-cpp-python 0.3.36 (read from its llama_chat_format.py): with the
model's own chat template (the default), the server returns tool calls only when `tool_choice`
names a function ({"type": "function", "function": {"name": ...}}); it then constrains the
reply to that function's JSON arguments and returns exactly one call. "auto", "required" or no
tool_choice give plain text (tests/llm/test_llama_server.py). Started with
`--chat_format chatml-function-calling` (a ChatML template of its own), "auto" lets the model
answer in text or call one or more tools (finish_reason "tool_calls"), a named function works
too, and "required" fails an assertion: HTTP 500, which is retried like any server error, so do
not send it there. vLLM returns tool calls (parallel ones too) with "auto" or "required" when
started with --enable-auto-tool-choice and a --tool-call-parser. tool_choice is passed through
as given.
"""

from __future__ import annotations

import logging
import os

from .backend import Once, Slots
from .grading import choice_distribution
from .loglikelihood import align_echo
from .preflight import check_servers
from .results import RequestFailed, ServersUnusable, Stats
from .server_probes import ServerProbes, server_identity
from .settings import LLMSettings
from .spreading import RetryLog, URLGate, URLPool
from .transports import AiohttpTransport, SDKTransport, encode_json

log = logging.getLogger(__name__)

# Sent as the key when none is configured: local servers ignore it, and the SDK needs one.
NO_KEY = "no-key"
# Prompts whose next token is a plain word for any model; the echo check uses the first that gives one.
_ECHO_PROBES = ("The capital of France is", "One, two, three,")
# Echo and generation of one token on one server differ by float noise only; a shifted echo by nats.
ECHO_TOLERANCE = 0.05
# Top log-probabilities asked with a constrained grade (vLLM's default cap is 20).
_TOP_LOGPROBS = 20


class OpenAIBackend:
    def __init__(self, settings: LLMSettings, stats: Stats, retry_log: RetryLog):
        self.s = settings
        key = NO_KEY
        if settings.api_key_env:
            key = os.environ.get(settings.api_key_env)
            if not key:
                raise RuntimeError(
                    f"llm.api_key_env names ${settings.api_key_env}, which is not set: export it before running"
                )
        transport = (AiohttpTransport if settings.transport == "aiohttp" else SDKTransport)(settings, key)
        self.pool = URLPool(settings, transport, stats, retry_log)
        self.slots = Slots(settings.max_in_flight)
        self._decoding = {"model": settings.model, "temperature": settings.temperature, "seed": settings.seed,
                          **settings.extra_body}
        self._decoding_json = encode_json(self._decoding)[1:-1]
        self._server_info: dict | None = None
        self.probes = ServerProbes(settings, self.pool, self._decoding)
        self._grade_payloads: dict[tuple, tuple] = {}
        self._servers = Once(lambda: check_servers(self.pool, settings.model, settings.api_key_env))
        self._echo_gate = URLGate(self._echo_problem, "log-likelihoods")
        self._warned: set[str] = set()

    def _warn_once(self, key: str, msg: str, *args) -> None:
        if key not in self._warned:
            self._warned.add(key)
            log.warning(msg, *args)

    # -- operations ------------------------------------------------------------------------
    def execute(self, op: str, request: dict, messages=None, encoded=None, route=None):
        # Returns an awaitable rather than awaiting it: one frame less for every resume of every
        # request (see URLPool._retrying).
        if not self._servers.done:
            return self._first_call(op, request, messages, encoded)
        if self._servers.value is not None:
            return self._unusable()
        if op == "chat":
            return self._chat(request, messages, encoded, route)
        if op == "grade":
            return self._grade(request, messages, encoded, route)
        return self._loglikelihood(request, route)

    async def _first_call(self, op: str, request: dict, messages, encoded, route=None):
        await self._servers.get()
        return await self.execute(op, request, messages, encoded, route)

    async def _unusable(self):
        # Kept: every call of a job no server can serve fails at once. A fresh exception each time,
        # so that tracebacks do not pile up on one object.
        raise ServersUnusable(str(self._servers.value))

    def _chat(self, request: dict, messages, encoded, route=None):
        request_json, messages_json = encoded or (encode_json(request), encode_json(messages))
        if "action_schema" in request:  # llm.tool_constraint grammar: sent as the server's structured outputs
            request = {**request, "response_format": {"type": "json_schema", "json_schema": {
                "name": "action", "strict": True, "schema": request["action_schema"]}}}
            del request["action_schema"]
            request_json = encode_json(request)
        # The body's fields as text: the decoding fields, encoded once, then the request's.
        fields_json = f"{{{self._decoding_json},{request_json[1:]}"
        return self.pool.post("chat", {**self._decoding, **request}, messages, finish=_chat_value,
                              fields_json=fields_json, messages_json=messages_json, route=route)

    def _grade(self, request: dict, messages, encoded, route=None):
        choices = tuple(request["choices"])
        once = self.probes.constraint(choices)
        messages_json = encoded[1] if encoded else encode_json(messages)
        if once.done:
            return self._constrained_grade(choices, messages, messages_json, route)
        return self._first_grade(once, choices, messages, messages_json, route)

    async def _first_grade(self, once, choices, messages, messages_json, route):
        await once.get()
        return await self._constrained_grade(choices, messages, messages_json, route)

    def _grade_fields(self, choices: tuple) -> tuple[str, dict, str]:
        """(path, fields, fields as JSON) of the grades with these choices, memoized: they are
        the same for every grade of a job."""
        hit = self._grade_payloads.get(choices)
        if hit is None:
            path, detail = self.probes.constraint(choices).value
            fields = {**self._decoding, "max_tokens": self.s.grade_max_tokens}
            if path == "structured_outputs":
                field = detail["field"]
                fields[field] = {"choice": list(choices)} if field == "structured_outputs" else list(choices)
            elif path == "logit_bias":
                fields.update(logit_bias=detail["bias"], max_tokens=1)  # only a choice token can come out
            if path != "parsed":
                fields.update(logprobs=True, top_logprobs=_TOP_LOGPROBS)
            hit = self._grade_payloads[choices] = (path, fields, encode_json(fields))
        return hit

    def _constrained_grade(self, choices: tuple, messages, messages_json, route=None):
        path, fields, fields_json = self._grade_fields(choices)
        return self.pool.post("chat", fields, messages, finish=lambda data: self._grade_value(data, path, choices),
                              fields_json=fields_json, messages_json=messages_json, route=route)

    def _grade_value(self, data: dict, path: str, choices: tuple) -> dict:
        choice = data["choices"][0]
        reply = (choice.get("message") or {}).get("content") or ""
        if path != "parsed" and reply.strip() not in choices:
            self._warn_once(f"held:{path}", "grades on %s: the %s constraint did not hold (reply %r); such replies "
                            "are parsed and recorded with path `parsed`", self.pool.urls[0], path, reply[:80])
            path = "parsed"
        logprobs = _first_token_logprobs(choice) if path != "parsed" else None
        return {"reply": reply, "path": path,
                "choice_logprobs": choice_distribution(logprobs, choices) if logprobs else None,
                "usage": usage(data)}

    async def _loglikelihood(self, request: dict, route=None) -> dict:
        values, spent = await self._score(request["context"], request["continuation"], route=route)
        return {"logprobs": values, "usage": spent}

    def _post_completion(self, payload: dict, url: str | None, route=None):
        """A log-likelihood request: to `url` alone, unretried (the alignment check of that URL),
        or spread over the URLs whose alignment was checked."""
        if url is not None:
            return self.pool.transport.post(url, "completions", payload)
        return self.pool.post("completions", payload, gate=self._echo_gate, route=route)

    async def _score(self, context: str, continuation: str, url: str | None = None,
                     route=None) -> tuple[list[float], tuple | None]:
        """The continuation's log-probabilities, and the request's usage."""
        prefix, extra, bos_in_prompt = await self.probes.bos.get()
        sent = prefix + context + continuation
        payload = {**self._decoding, "prompt": sent, "max_tokens": 1, **extra}
        if self.s.loglikelihood_api == "prompt_logprobs":
            # vLLM: with 0 it returns each prompt token's own entry only (the first one null).
            payload["prompt_logprobs"] = 0
            data = await self._post_completion(payload, url, route)
            entries = data["choices"][0].get("prompt_logprobs")
            if not entries:
                raise RequestFailed("server ignored prompt_logprobs (only vLLM supports it): "
                                    "set llm.loglikelihood_api: echo", "unsupported_model")
            tokens, values = [], []
            for e in entries:
                if e is None:
                    tokens.append(None)
                    values.append(None)
                    continue
                (only,) = e.values()
                tokens.append(only.get("decoded_token") or "")
                values.append(only["logprob"])
            # The first prompt token has no entry: its text is what the others leave of the prompt.
            rest = "".join(t for t in tokens if t is not None)
            tokens = [sent[:len(sent) - len(rest)] if t is None and sent.endswith(rest) else (t or "")
                      for t in tokens]
            echoed, generated = None, 0
        else:
            payload.update(echo=True, logprobs=1)
            data = await self._post_completion(payload, url, route)
            lp = data["choices"][0].get("logprobs") or {}
            tokens, values = lp.get("tokens"), lp.get("token_logprobs")
            if not tokens or values is None or len(tokens) != len(values):
                raise RequestFailed("server returned no prompt log-probabilities for echo=True, logprobs=1 "
                                    "(llama-cpp-python needs --logits_all true)", "unsupported_model")
            echoed = data["choices"][0].get("text")
            generated = (data.get("usage") or {}).get("completion_tokens", 1)
        return align_echo(tokens, values, sent=sent, context=context, continuation=continuation,
                          echoed_text=echoed, prompt_tokens=(data.get("usage") or {}).get("prompt_tokens"),
                          completion_tokens=generated, bos_in_prompt=bos_in_prompt), usage(data)

    # -- what the server can do, learnt once per job ----------------------------------------
    async def _echo_problem(self, url: str) -> RequestFailed | None:
        """None when the log-likelihood path on `url` agrees with that server's own generation
        (or could not be checked: logged), else the misalignment that keeps `url` from serving
        log-likelihoods. A transient failure raises (URLGate tries again later)."""
        prefix, extra, _ = await self.probes.bos.get()
        for ctx in _ECHO_PROBES:
            payload = {**self._decoding, "prompt": prefix + ctx, "max_tokens": 1, "logprobs": 1, **extra}
            data = await self.pool.transport.post(url, "completions", payload)
            lp = data["choices"][0].get("logprobs") or {}
            toks, vals = lp.get("tokens") or [], lp.get("token_logprobs") or []
            if len(toks) != 1 or not vals or vals[0] is None or not toks[0].strip():
                continue
            try:
                got, _ = await self._score(ctx, toks[0], url)
            except RequestFailed as e:
                if e.kind in ("misaligned", "unsupported_model"):
                    return e
                raise
            if len(got) != 1:
                continue
            if abs(got[0] - vals[0]) <= ECHO_TOLERANCE:
                log.info("log-likelihoods on %s: alignment checked (%r after %r: %.4f generated, %.4f scored)",
                         url, toks[0], ctx, vals[0], got[0])
                return None
            return RequestFailed(
                f"misaligned: the server scores {toks[0]!r} after {ctx!r} at {got[0]:.3f} in the prompt but "
                f"{vals[0]:.3f} when it generates it, so its prompt log-probabilities are not each token's given "
                "the ones before (llama-cpp-python 0.3.36 without a BOS first); set llm.loglikelihood_bos: always "
                "(and llm.loglikelihood_bos_text if the server adds no BOS itself)", "misaligned")
        log.warning("log-likelihoods on %s: alignment could not be checked (no probe prompt gave a one-token "
                    "word); scores are used unchecked", url)
        return None

    # -- identity ----------------------------------------------------------------------------
    def answer_identity(self) -> dict:
        return self.s.answer_settings()

    def identity(self) -> dict:
        if self._server_info is None:
            self._server_info = server_identity(self.s)
        # no base URLs nor transport: they change no answer and rerun nothing, so a release recording
        # them would differ by where and how it was built (and keep stale ones after a move to other servers)
        ident = {**self.s.answer_settings(), "server": self._server_info,
                 "loglikelihood_method": f"/v1/completions {self.s.loglikelihood_api}, max_tokens=1, BOS "
                                         f"{self.s.loglikelihood_bos}; continuation found by the echoed tokens' "
                                         "text and usage counts, checked on each base URL against that "
                                         "server's own generation"}
        return ident

    async def aclose(self) -> None:
        await self.pool.transport.aclose()


def _first_token_logprobs(choice: dict) -> dict[str, float] | None:
    """token -> logprob at the reply's first position, from a chat choice's logprobs."""
    content = (choice.get("logprobs") or {}).get("content") or []
    if not content:
        return None
    first = content[0]
    out = {t["token"]: t["logprob"] for t in first.get("top_logprobs") or () if "token" in t}
    out.setdefault(first.get("token"), first.get("logprob"))
    return out


def usage(data: dict) -> tuple[int, int, int] | None:
    """(prompt, completion, cached prompt) tokens of an answer's `usage`, None when it has none.
    Cached: vLLM's prompt_tokens_details.cached_tokens (prefix caching), 0 where not reported."""
    u = data.get("usage")
    if not isinstance(u, dict) or "prompt_tokens" not in u:
        return None
    cached = (u.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
    return int(u["prompt_tokens"] or 0), int(u.get("completion_tokens") or 0), int(cached)


def _chat_value(data: dict) -> dict:
    choice = data["choices"][0]
    msg = choice.get("message") or {}
    return {"text": msg.get("content") or "", "tool_calls": msg.get("tool_calls") or [],
            "finish_reason": choice.get("finish_reason"), "usage": usage(data)}

"""The one log-likelihood contract both backends keep.

`loglikelihood(context, continuation)` returns the natural-log probability of each token of
`continuation`, each given everything before it, where the text scored is

    BOS + context + continuation

BOS is the model's beginning-of-sequence token, applied by one rule (llm.loglikelihood_bos):
`auto` puts it first exactly when the model's tokenizer adds one by default (HF `add_bos_token`,
llama.cpp's `tokenizer.ggml.add_bos_token`; SmolLM2: no, Gemma and Llama: yes), `always` and
`never` force it. The continuation's tokens are those starting at or after the boundary
(len(context) characters into the text); a token that straddles the boundary makes the split
meaningless and is refused as `misaligned`, as is a continuation with no token before it
(empty context and no BOS). Start the continuation with a space or a newline, as the model
would write it.

The local backend tokenizes with offsets and needs nothing else. The openai backend sends the
text to /v1/completions and reads the prompt's log-probabilities back (`align_echo`); servers
differ in whether the echoed list holds the BOS and the generated token, so the split is found
from the echoed tokens' text and the usage counts, and checked once per job against the
server's own generation (see OpenAIBackend).
"""

from __future__ import annotations

from .results import RequestFailed


def _refuse(what: str) -> RequestFailed:
    return RequestFailed(f"misaligned: {what}", "misaligned")


def continuation_start(spans, boundary: int, context: str, continuation: str) -> int:
    """Index of the first token whose (start, end) character span starts at or after `boundary`.

    Refused as `misaligned`: a token straddling the boundary, a continuation without tokens, and
    one whose first token is the first of the text (nothing to condition it on)."""
    for j, (start, end) in enumerate(spans):
        if start >= boundary:
            if j == 0:
                raise _refuse(f"continuation {continuation[:40]!r} starts the text, so its first token has nothing "
                              "to condition on; give a context or set llm.loglikelihood_bos: always")
            return j
        if end > boundary:
            raise _refuse(f"a token spans the boundary between context ...{context[-20:]!r} and continuation "
                          f"{continuation[:40]!r}; start the continuation with a space or a newline, as the model "
                          "writes it")
    raise _refuse(f"continuation {continuation[:40]!r} has no tokens")


def align_echo(tokens, values, *, sent: str, context: str, continuation: str, echoed_text: str | None,
               prompt_tokens: int | None, completion_tokens: int, bos_in_prompt: bool | None) -> list[float]:
    """The continuation's log-probabilities from an echoed prompt (/v1/completions echo=True).

    `sent` is the prompt text sent (maybe a BOS text, then context + continuation); `tokens` and
    `values` the echoed tokens' texts and log-probabilities. Servers differ: vLLM echoes the BOS
    and the generated tokens, llama-cpp-python drops the BOS and, on some prompts, the generated
    token; the text offsets they report do not index the same string. So the list is split by
    text: the prompt's entries are those whose texts end with context + continuation, the
    generated ones (0 or `completion_tokens`) those after, and their count must match the
    server's prompt-token count (less one where the server dropped the BOS). A list that fits no
    split, or more than one, is refused as `misaligned`.
    """
    scored = context + continuation
    n = len(tokens)
    fits = []
    for g in dict.fromkeys((completion_tokens, 0)):
        if g > n:
            continue
        gen = "".join(tokens[n - g:])
        if g and echoed_text is not None and echoed_text.startswith(sent):
            if gen != echoed_text[len(sent):] and echoed_text[len(sent):] != "":
                continue
        head = tokens[:n - g]
        # A server that put a BOS first may leave it out of the echo (None: unknown whether it did).
        counts = {prompt_tokens, prompt_tokens - 1} if bos_in_prompt is not False and prompt_tokens else {prompt_tokens}
        if prompt_tokens is not None and len(head) not in counts:
            continue
        if not "".join(head).endswith(scored):
            continue
        fits.append(g)
    if len(fits) != 1:
        shown = tokens[-8:]
        raise RequestFailed(
            f"misaligned: the server's echoed tokens cannot be aligned with the prompt ({n} tokens, usage "
            f"prompt_tokens={prompt_tokens} completion_tokens={completion_tokens}, last {shown}; "
            f"{'several splits fit' if fits else 'no split fits'}): use a server whose /v1/completions echo "
            "returns the prompt's tokens (vLLM, llama-cpp-python with --logits_all true)", "misaligned")
    head = tokens[:n - fits[0]]
    spans, pos = [], 0
    for t in head:
        spans.append((pos, pos + len(t)))
        pos += len(t)
    j = continuation_start(spans, pos - len(scored) + len(context), context, continuation)
    picked = values[j:len(head)]
    if any(v is None for v in picked):
        raise _refuse(f"the server reports no log-probability for the first token of continuation "
                      f"{continuation[:40]!r} (it is the first token it echoes); give a context")
    return [float(v) for v in picked]

"""The grade reply grammar: what a free-text grade reply must look like to count as a grade.

    reply      := [reasoning block] (bare | [anything] newline keyed)
    bare       := deco* CHOICE deco* ["."] deco*          the whole reply is the choice
    keyed      := mark* KEYWORD mark* ":" mark* CHOICE mark* ["."] deco*    the reply's last line
    KEYWORD    := "Grade" (GRADE_KEYWORD; any case)
    deco       := whitespace, `*`, `_`, backtick, `"` or `'`;  mark := deco but a line break

These are the two forms the grade prompts ask for (prompts/grade_*.txt): the choice alone, or,
after any reasoning, a last line `Grade: N`. A reasoning block (`<think>...</think>`, also
`<thinking>` and `<reasoning>`) is removed first; a reply whose reasoning was never closed (cut at
max_tokens) is unparseable. Everything else is unparseable, on purpose: another keyword ("The
answer is 3.", "Answer: 3", "Final answer: 3", perhaps copied from a passage), a grade that is not
on a line of its own or not the last line ("... so Grade: 3", "Grade: 3\nbut maybe 2"), a digit
inside prose ("Step 1: ...", "I would not give it a 3"), a signed or scaled number ("-1", "2/3",
"Grade: 2 out of 3"), and an echo of the instructions ("Reply with a single digit: 0, 1, 2 or 3.").
An unparseable reply is asked again with GRADE_REASK, which names no choice, so copying it gives
no grade.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

GRADE_REASK = ("Your reply could not be read as a grade. Reply again with only the grade itself, "
               "written exactly as one of the allowed values given in the instructions, and nothing else.")
# The keyword of the keyed form; the grade prompts name it as `Grade: N`.
GRADE_KEYWORD = "Grade"

_REASONING = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.S | re.I)
_OPEN_TAG = re.compile(r"<(think|thinking|reasoning)>", re.I)
_CLOSE_TAG = re.compile(r"</(?:think|thinking|reasoning)>", re.I)
_DECO = r"[\s*_`\"']"
_MARK = r"(?:(?!\n)[\s*_`\"'])"  # decoration within one line


@lru_cache(maxsize=64)
def _grammar(choices: tuple[str, ...]) -> tuple[re.Pattern, re.Pattern]:
    alt = "|".join(map(re.escape, sorted(choices, key=len, reverse=True)))
    bare = re.compile(rf"{_DECO}*({alt}){_DECO}*\.?{_DECO}*", re.I)
    keyed = re.compile(
        rf"(?:\A|(?<=\n)){_MARK}*{GRADE_KEYWORD}{_MARK}*:{_MARK}*({alt}){_MARK}*\.?{_DECO}*\Z", re.I)
    return bare, keyed


def strip_reasoning(reply: str) -> str | None:
    """The reply without its reasoning blocks; None when a reasoning block was never closed."""
    text = _REASONING.sub("", reply)
    close = list(_CLOSE_TAG.finditer(text))
    if close:  # the opening tag was in the prompt (some chat templates put it there)
        text = text[close[-1].end():]
    if _OPEN_TAG.search(text):
        return None
    return text


def parse_grade(reply: str, choices) -> str | None:
    """The choice a grade reply gives under the grammar above, or None (unparseable).

    Choices match case-insensitively and come back as spelled in `choices`."""
    choices = tuple(choices)
    text = strip_reasoning(reply)
    if text is None:
        return None
    bare, keyed = _grammar(choices)
    m = bare.fullmatch(text) or keyed.search(text)
    if m is None:
        return None
    got = m.group(1).lower()
    return next(c for c in choices if c.lower() == got)


def choice_distribution(logprobs: dict[str, float], choices) -> dict[str, float] | None:
    """Log-probabilities of `choices` renormalised over the choices, from a token -> logprob map
    (a server's top_logprobs, or the model's own); None unless every choice is in the map."""
    if any(c not in logprobs or logprobs[c] is None for c in choices):
        return None
    top = max(logprobs[c] for c in choices)
    log_z = top + math.log(sum(math.exp(logprobs[c] - top) for c in choices))
    return {c: logprobs[c] - log_z for c in choices}

"""Property tests of the grade grammar (irdata.llm.grading) over generated replies: every reply in
one of the two forms the prompts ask for parses to its choice, and no reply whose last statement is
not a grade parses as one, whatever came before it (grades in reasoning, in prose, in a passage's
copied text)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from irdata.grade_scale import CHOICES
from irdata.llm.grading import GRADE_KEYWORD, parse_grade, strip_reasoning

PROMPTS = Path(__file__).resolve().parents[2] / "prompts"
DECO_CHARS = "*_`\"'"
LINE_DECO = st.text(alphabet=" \t" + DECO_CHARS, max_size=3)
TRAILING_DECO = st.text(alphabet=" \t\n" + DECO_CHARS, max_size=3)
# Prose of any kind, digits and grade-like words included; no `<` (no reasoning tags) and no `\r`.
PROSE = st.text(alphabet=st.characters(blacklist_characters="<\r", blacklist_categories=("Cs",)), max_size=80)
REASONING = st.builds(lambda tag, body: f"<{tag}>{body}</{tag}>", st.sampled_from(["think", "thinking", "reasoning"]),
                      PROSE)


def _is_deco(ch: str) -> bool:
    return ch.isspace() or ch in DECO_CHARS


def grade_like(reply: str) -> bool:
    """Over-approximates what the grammar accepts: True for every reply whose last line, or whole
    text, is a choice or `grade:` + a choice once reasoning blocks and all decoration are removed
    (a grade or something close to one). A reply it calls False has no grade as its last statement."""
    text = strip_reasoning(reply)
    if text is None:  # reasoning never closed
        return False
    while text and _is_deco(text[-1]):
        text = text[:-1]
    for candidate in (text, text.split("\n")[-1]):
        core = "".join(c for c in candidate if not _is_deco(c)).lower().removesuffix(".")
        if core.removeprefix(GRADE_KEYWORD.lower() + ":") in CHOICES:
            return True
    return False


def _case(word: str, flips: list[bool]) -> str:
    return "".join(c.upper() if f else c.lower() for c, f in zip(word, flips + [False] * len(word)))


@st.composite
def well_formed(draw):
    """(reply, choice): the choice alone, or any reasoning then a last line `Grade: N`."""
    choice = draw(st.sampled_from(CHOICES))
    period = draw(st.sampled_from(["", "."]))
    lead = draw(st.one_of(st.just(""), REASONING))
    if draw(st.booleans()):
        reply = f"{draw(TRAILING_DECO)}{choice}{draw(LINE_DECO)}{period}{draw(TRAILING_DECO)}"
    else:
        keyword = _case(GRADE_KEYWORD, draw(st.lists(st.booleans(), max_size=5)))
        before = draw(st.one_of(st.just(""), PROSE.map(lambda p: p + "\n")))
        reply = (f"{before}{draw(LINE_DECO)}{keyword}{draw(LINE_DECO)}:{draw(LINE_DECO)}{choice}"
                 f"{draw(LINE_DECO)}{period}{draw(TRAILING_DECO)}")
    return lead + reply, choice


NEAR_MISSES = [
    "The answer is {c}.", "Final answer: {c}", "Answer: {c}", "... Final answer: {c}", "Final grade: {c}",
    "Score: {c}", "Rating: {c}/3", "Grade: {c} out of 3", "Grade: {c}/3", "Grade {c}", "grade = {c}",
    "The grade is {c}", "so Grade: {c}", "I would give it a {c}", "Grade: -{c}", "Grade: {c}{c}", "Grade: {c}.5",
    "Step {c}: read the passage", "Reply with a single digit: 0, 1, 2 or 3.", "Grade: {c} because it helps",
    "Grade: N", "{c} or {c}", "maybe {c}", "Grade:\n{c}", "<think>Grade: {c}", "Grade: {c} (high)",
]


@st.composite
def not_a_grade(draw):
    """A reply whose last statement is not a grade, after anything (grades included)."""
    before = draw(st.lists(st.one_of(PROSE, REASONING, well_formed().map(lambda r: r[0])), max_size=3))
    tail = draw(st.one_of(PROSE, st.builds(lambda t, c: t.format(c=c), st.sampled_from(NEAR_MISSES),
                                           st.sampled_from(CHOICES))))
    sep = draw(st.sampled_from(["\n", " ", "\n\n", ". "]))
    reply = sep.join([*before, tail]) if before else tail
    if draw(st.booleans()):
        reply = draw(REASONING) + reply
    return reply


@settings(max_examples=300, deadline=None)
@given(well_formed())
@example(("Grade: 2", "2"))
@example(("<think>Grade: 1</think>The passage answers it.\n**Grade:** 3.", "3"))
def test_every_well_formed_grade_reply_parses_to_its_choice(case):
    reply, choice = case
    assert parse_grade(reply, CHOICES) == choice


@settings(max_examples=800, deadline=None)
@given(not_a_grade())
@example("The answer is 3.")
@example("It is relevant.\nGrade: 2\n... Final answer: 3")
@example("Reply with a single digit: 0, 1, 2 or 3.")
def test_no_reply_whose_last_statement_is_not_a_grade_parses(reply):
    if grade_like(reply):  # the generator met a grade by chance: not a case of this property
        return
    assert parse_grade(reply, CHOICES) is None, reply


def test_the_oracle_covers_the_grammar():
    """grade_like must call every accepted reply grade-like, or the property above proves nothing."""
    for reply in ["3", "**Grade:** 2.", "x\nGrade: 1\n\n", "<think>a</think>0", "GRADE:3"]:
        assert parse_grade(reply, CHOICES) is not None and grade_like(reply)


def test_the_grade_prompts_name_exactly_the_two_forms():
    for path in sorted(PROMPTS.glob("grade_*.txt")):
        text = path.read_text(encoding="utf-8")
        assert f"{GRADE_KEYWORD}: N" in text and "single digit" in text, path.name
        assert parse_grade(text, CHOICES) is None  # an echo of the instructions is no grade

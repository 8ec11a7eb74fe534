"""How an EnviroExam question is put to a model and its answer read: the published prompt (0- or 5-shot,
optional chain of thought), option rotations for circular evaluation, and the letter read from a reply."""
from __future__ import annotations

import re
from collections.abc import Sequence

from lib.evaluation.exam.dataset import LETTERS, Question, course_title

# ----- prompts -----------------------------------------------------------------------------------
PROMPT_HEAD = "以下是关于{course}（环境科学）考试的单项选择题，请选出其中的正确答案。\n\n"
PROMPT_QUESTION = "{question}\n{options}\n答案：{answer}"
PROMPT_OPTION = "{letter}. {text}"
PROMPT_COT = "请逐步思考，最后以“答案：X”的格式给出答案。\n"  # replaces the closing 答案： under chain of thought


def format_question(q: Question, with_answer: bool = False) -> str:
    opts = "\n".join(PROMPT_OPTION.format(letter=k, text=q.options[k]) for k in LETTERS)
    return PROMPT_QUESTION.format(question=q.question, options=opts, answer=f" {q.answer}\n" if with_answer else "")


def build_prompt(q: Question, shots: Sequence[Question] = (), cot: bool = False) -> str:
    """OpenCompass-style prompt; 5-shot puts the course's dev questions, answered, before the question."""
    head = PROMPT_HEAD.format(course=course_title(q.course))
    examples = "".join(format_question(s, with_answer=True) + "\n" for s in shots)
    body = format_question(q)
    if cot:
        body = body.replace("答案：", PROMPT_COT)
    return head + examples + body


def prompt_templates(cot: bool) -> dict[str, str]:
    """The templates a run's prompts are made from (hashed into its manifest)."""
    return {"head": PROMPT_HEAD, "question": PROMPT_QUESTION, "option": PROMPT_OPTION} | (
        {"cot": PROMPT_COT} if cot else {})


# ----- circular evaluation -------------------------------------------------------------------------
def rotate(q: Question, k: int) -> Question:
    """The question with its options shifted k places (OpenCompass CircularEval): k=1 shows BCDA as ABCD, so
    the option printed under A is the original B, and the gold letter moves with its text."""
    k %= len(LETTERS)
    if not k:
        return q
    opts = {LETTERS[i]: q.options[LETTERS[(i + k) % len(LETTERS)]] for i in range(len(LETTERS))}
    gold = LETTERS[(LETTERS.index(q.answer) - k) % len(LETTERS)]
    return Question(q.course, q.index, q.question, opts, gold)


def unrotate(letter: str | None, k: int) -> str | None:
    """The original letter of an option shown under ``letter`` in rotation k."""
    if letter is None:
        return None
    return LETTERS[(LETTERS.index(letter) + k) % len(LETTERS)]


# ----- letter extraction ---------------------------------------------------------------------------
# The rule, in order:
#   1. a stated final answer ("答案：C", "答案是D", "The answer is (C)", "Answer: A"): the last one wins (chain
#      of thought may state several);
#   2. a cue ("选B", "option D", "choice C"): the first one;
#   3. a letter that opens the reply ("B.", "b", "C、", "(D) …");
#   4. a bracketed letter anywhere ("(b)", "（C）");
#   5. otherwise a bare capital A–D standing alone in the text, but only when exactly one letter appears
#      ("Both A and C look right" names two choices: None).
# Throughout, an "a"/"A" that is English prose is not a choice: a lowercase "a" followed by a word ("is a
# combination", "a trick question"), or a capital "A" that opens a sentence and is followed by a word ("A
# combination of B and C …"). A letter followed by a verb or conjunction ("A is correct", "the answer is A
# because …", "A and C") is still a letter. Nothing readable gives None, which is scored as wrong.
EXTRACTOR_VERSION = 2  # bump when the rule changes: the run manifest records it
_FINAL = [
    re.compile(r"答案\s*(?:是|为|应该是|应为)?\s*[:：]?\s*[\(（\[]?\s*([ABCD])(?![A-Za-z])", re.I),
    re.compile(r"answer\s*(?:is|:)?\s*[:：]?\s*(?:option\s*)?[\(\[]?\s*([ABCD])\b", re.I),
]
_CUE = re.compile(r"(?:选|选择|option|choice)\s*[\(（\[]?\s*([ABCD])(?![A-Za-z])", re.I)
_LEADING = re.compile(r"^\s*[\(（\[]?\s*([ABCD])\s*[\)）\]]?\s*(?:[.．。:：、,，]|$|\s)", re.I)
_BRACKETED = re.compile(r"[\(（\[]\s*([ABCD])\s*[\)）\]]", re.I)
_BARE = re.compile(r"(?<![A-Za-z])([ABCD])(?![A-Za-z])")
_NEXT_WORD = re.compile(r"\s+([A-Za-z][A-Za-z'’-]*)")
_SENTENCE_START = re.compile(r"(?:^|[.!?。！？:：\n])[\s\"'“‘(（]*$")
_LETTER_FOLLOWERS = frozenset({  # words that follow a letter named as a choice, never an article
    "is", "was", "seems", "appears", "looks", "would", "should", "must", "could", "can", "being", "and", "or",
    "but", "because", "since", "as", "so", "then", "vs", "versus", "nor"})


def _is_article(text: str, m: re.Match) -> bool:
    letter = m.group(1)
    if letter not in ("a", "A"):
        return False
    nxt = _NEXT_WORD.match(text, m.end(1))
    if not nxt or nxt.group(1).lower() in _LETTER_FOLLOWERS:
        return False
    return letter == "a" or _SENTENCE_START.search(text, 0, m.start(1)) is not None


def extract_letter(text: str | None) -> str | None:
    """The chosen letter from a free-text answer, or None when none can be read (see the rule above)."""
    if not text:
        return None
    t = text.strip()
    finals = [m for pat in _FINAL for m in pat.finditer(t) if not _is_article(t, m)]
    if finals:
        return max(finals, key=lambda m: m.start()).group(1).upper()
    for pat in (_CUE, _LEADING, _BRACKETED):
        m = next((m for m in pat.finditer(t) if not _is_article(t, m)), None)
        if m:
            return m.group(1).upper()
    bare = {m.group(1) for m in _BARE.finditer(t) if not _is_article(t, m)}
    return bare.pop() if len(bare) == 1 else None

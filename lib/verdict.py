"""Normalise a free-text answer to a closed question into yes, no or unclear.

Negations count: "incorrect", "not true", "No, ..." are no. (Some research code maps "incorrect"
to yes because it contains "correct"; this parser does not.)
"""
from __future__ import annotations

import re

YES, NO, UNCLEAR = "yes", "no", "unclear"

_UNCLEAR = re.compile(
    r"\b(unclear|uncertain|unknown|cannot (be )?(determine|determined|say|tell|answer)|can't (determine|say|tell)|"
    r"not enough information|insufficient information|does not (say|specify|mention|state)|"
    r"doesn't (say|specify|mention|state)|not (specified|mentioned|stated)|no information|i don't know|"
    r"i do not know|not sure|unable to determine)\b"
)
_NO_PHRASES = re.compile(
    r"\b(incorrect|not correct|not true|untrue|false|not the case|negative|nope|wrong|not accurate|inaccurate|"
    r"did not|didn't|does not|doesn't|do not|don't|is not|isn't|are not|aren't|was not|wasn't|were not|weren't|"
    r"has not|hasn't|have not|haven't|will not|won't|cannot|can't|never|none)\b"
)
_YES_PHRASES = re.compile(
    r"\b(correct|true|affirmative|indeed|yep|yeah|certainly|absolutely|that's right|that is right|right)\b"
)
_LEAD_YES = re.compile(r"^\W*(yes|yeah|yep|y|sure|correct|true|affirmative|indeed)\b")
_LEAD_NO = re.compile(r"^\W*(no|nope|n|not|incorrect|false|negative|never)\b")


def parse_verdict(text: str | None) -> str:
    """yes, no or unclear for an answer to a yes/no question."""
    if not text:
        return UNCLEAR
    t = re.sub(r"[*_`#>]", " ", text.lower()).strip()
    t = re.sub(r"^(answer|verdict|final answer|response)\s*[:\-]\s*", "", t)
    if not t:
        return UNCLEAR
    # The leading word settles it: "No, ...", "Yes - ...", "Not true".
    if _LEAD_NO.match(t):
        return NO
    if _LEAD_YES.match(t):
        return YES
    first = re.split(r"(?<=[.!?])\s|\n", t, maxsplit=1)[0]
    if _UNCLEAR.search(first):
        return UNCLEAR
    has_yes_word = re.search(r"\byes\b", first)
    has_no_word = re.search(r"\bno\b", first)
    if has_yes_word and not has_no_word:
        return YES
    if has_no_word and not has_yes_word:
        return NO
    if has_yes_word and has_no_word:
        return YES if has_yes_word.start() < has_no_word.start() else NO
    if _NO_PHRASES.search(first):
        return NO
    if _YES_PHRASES.search(first):
        return YES
    return UNCLEAR


_CLOSED_START = re.compile(
    r"^\s*(is|are|was|were|do|does|did|has|have|had|can|could|will|would|should|shall|may|might|must)\b", re.I
)


def looks_closed(question: str) -> bool:
    """A question that starts with an auxiliary verb ("Did the ...?", "Is there ...?") is closed."""
    return bool(_CLOSED_START.match(question)) and " or " not in question.lower()

"""The support check in the Arena's passages view: each answer of a pair checked, by the offline checker, against
the passages the view shows (the reference passage and the retrieved ones either answer was given), numbered as
the view shows them. Both answers meet the same passages and their own citation markers are set aside, so the
check says nothing of which context an answer had: the vote stays blind."""
from __future__ import annotations

from lib.qa import support
from lib.review.arena import Pair


def shown_passages(pair: Pair) -> list[support.Passage]:
    """The passages as the view lists them: the reference passage first, then the retrieved ones."""
    texts: list[tuple[str, str]] = []
    if pair.gold:
        texts.append((pair.gold, "the reference passage"))
    for p in pair.passages:
        texts.append((p.text, p.pages or "a retrieved passage"))
    return [support.Passage(i, t, page) for i, (t, page) in enumerate(texts, start=1) if t.strip()]


def pair_support(pair: Pair) -> tuple[support.SupportReport, support.SupportReport] | None:
    """(left, right) checked against the shown passages; None when the view shows none."""
    passages = shown_passages(pair)
    if not passages:
        return None
    return (support.check(support.bare(pair.left.text), passages),
            support.check(support.bare(pair.right.text), passages))


__all__ = ["pair_support", "shown_passages"]

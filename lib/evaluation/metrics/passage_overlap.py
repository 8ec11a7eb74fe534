"""Retrieval quality against gold passages: a hit is a chunk whose word-trigram overlap coefficient with
the gold passage is at least 0.5 (|A ∩ B| / min(|A|, |B|) over sets of word trigrams)."""
from __future__ import annotations

import re
from collections.abc import Iterable

HIT_THRESHOLD = 0.5
_WORD = re.compile(r"\w+")


def trigrams(text: str) -> set[tuple[str, str, str]]:
    words = _WORD.findall(text.lower())
    return {(words[i], words[i + 1], words[i + 2]) for i in range(len(words) - 2)}


def overlap_coefficient(a: str, b: str) -> float:
    ta, tb = trigrams(a), trigrams(b)
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / min(len(ta), len(tb))


def is_hit(chunk_texts: Iterable[str], gold: str, threshold: float = HIT_THRESHOLD) -> bool:
    return any(overlap_coefficient(t, gold) >= threshold for t in chunk_texts)


def first_hit_rank(chunk_texts: list[str], gold: str, threshold: float = HIT_THRESHOLD) -> int | None:
    """1-based rank of the first hit, or None."""
    for i, t in enumerate(chunk_texts, start=1):
        if overlap_coefficient(t, gold) >= threshold:
            return i
    return None

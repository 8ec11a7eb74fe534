"""The signals the support classifier reads for one claim sentence against the passages it may stand on.

Where a sentence could stand (``spans``): each sentence of each passage, each pair of neighbouring sentences (a
paraphrase may join two), and each bulleted list with the line that introduces it (a sentence that sums up a list
is read against its items together). Each span gets a combined score (meaning and word overlap) and the best one
is the sentence's evidence. Then the signals:

- ``cosine``: meaning, the bundled embedder's cosine to the closest source sentence (or list);
- ``overlap``, ``overlap_all``: the share of the sentence's content words in its evidence, and in its evidence's
  whole passage;
- ``bigrams``, ``run``: phrase overlap: the share of its content-word pairs in the evidence, and its longest run of
  words in the evidence's order (verbatim quotes have long runs, paraphrases short ones);
- ``novel``: how many of its content words that passage lacks (an elaboration brings its own words);
- ``numbers``, ``names``, ``dates``: how many it states that its evidence's passage does not hold;
- ``negation``: whether it negates where the evidence sentence itself does not (or the reverse); a "not" in a
  neighbouring sentence does not count;
- ``weakest``: the combined score of its weakest clause ("A, and B": B may be invented);
- ``general``: how many general-knowledge words it uses (typically, generally, often, helps, ensures, …);
- ``words``: its length in content words.

``lib/qa/support_model.py`` turns them into the chance the sentence is supported.
"""
from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lib.core.sentences import clean
from lib.core.text import quick_sentences, tokenize
from lib.core.verdict import is_negated
from lib.models.embedding import get_exact_embedder

MIN_WORDS = 3
CANDIDATES = 2  # per answer sentence, the source units with the most words in common are compared by meaning
MEANING_WORDS = 40  # a unit is embedded by its first this many words (the embedder's time grows with length)
MEANING_WEIGHT = 0.5  # the combined score that picks the evidence: this much meaning (rescaled cosine), the rest words
_COSINE_FLOOR, _COSINE_TOP = 0.25, 0.85  # cosines rescaled to 0–1 between these (MiniLM's unrelated/same range)

SIGNALS = ("cosine", "overlap", "overlap_all", "bigrams", "run", "novel", "numbers", "names", "dates", "negation",
           "weakest", "general", "words")


@dataclass(frozen=True)
class Span:
    source: int  # the passage's number
    page: str
    text: str
    units: tuple[int, ...]  # the source units (sentences, or one whole list) it is made of


# ----- spans -----------------------------------------------------------------------------------------------------
_ITEM = re.compile(r"^\s*(?:[-–—*•▪◦■●\u2023\u2043\uf0a7\uf0b7\uf0d8\uf076]|o(?=\s)|\(?[a-z0-9]\)|\d{1,2}\.)\s+(?P<item>\S.*)$")


def list_spans(text: str) -> list[str]:
    """Each bulleted or numbered list of ``text`` (two items or more) as one span: the line before it (its lead-in)
    and its items, joined."""
    out: list[str] = []
    lead = ""
    items: list[str] = []

    def close() -> None:
        if len(items) >= 2:
            last = quick_sentences(clean(lead))[-1:] if lead else []  # the lead-in's last sentence only
            out.append((f"{last[0]} " if last else "") + "; ".join(items) + ".")

    for line in (text or "").splitlines():
        m = _ITEM.match(line)
        if m:
            items.append(m.group("item").strip().rstrip(";,."))
            continue
        if items and line.strip() and line.strip()[:1].islower():  # an item's continuation line
            items[-1] += " " + line.strip().rstrip(";,.")
            continue
        close()
        items = []
        if line.strip():
            lead = line.strip()
    close()
    return out


def spans(passages: Sequence) -> tuple[list[Span], list[str]]:
    """The spans of the passages (each with ``n``, ``page`` and ``text``) and the units they are made of."""
    units: list[str] = []
    out: list[Span] = []
    for p in passages:
        sents = [s for s in quick_sentences(clean(p.text)) if len(s.split()) >= MIN_WORDS]
        first = len(units)
        units += sents
        out += [Span(p.n, p.page, s, (first + k,)) for k, s in enumerate(sents)]
        out += [Span(p.n, p.page, f"{sents[k]} {sents[k + 1]}", (first + k, first + k + 1))
                for k in range(len(sents) - 1)]
        for lst in list_spans(p.text):
            units.append(lst)
            out.append(Span(p.n, p.page, lst, (len(units) - 1,)))
    return out, units


# ----- meaning -----------------------------------------------------------------------------------------------------
_VECTORS: dict[str, np.ndarray] = {}  # text -> exact vector: a source checked again is not embedded again
_VECTORS_MAX = 20_000


def vectors(texts: Sequence[str]) -> np.ndarray:
    """Exact vectors of ``texts``, from the cache where it has them; safe from several threads (the cache may be
    emptied by another between two looks, so what is read is kept here)."""
    wanted = dict.fromkeys(texts)
    got: dict[str, np.ndarray] = {t: v for t in wanted if (v := _VECTORS.get(t)) is not None}
    todo = [t for t in wanted if t not in got]
    if todo:
        fresh = dict(zip(todo, get_exact_embedder().embed(todo), strict=True))
        got.update(fresh)
        if len(_VECTORS) + len(fresh) > _VECTORS_MAX:
            _VECTORS.clear()
        _VECTORS.update(fresh)
    return np.stack([got[t] for t in texts]) if texts else np.zeros((0, 1), dtype=np.float32)


def _overlap(a: list[str], b: set[str]) -> float:
    return sum(w in b for w in a) / len(a) if a else 0.0


@dataclass
class Scored:
    """Sentences × spans: the combined score (picks the evidence), the cosine per span (its closest unit) and per
    unit."""

    combined: np.ndarray
    cosine: np.ndarray
    unit_cosine: np.ndarray


def score(sentences: Sequence[str], all_spans: Sequence[Span], units: Sequence[str], choosing: int | None = None
          ) -> Scored:
    """Combined scores of every sentence against every span. Only the first ``choosing`` sentences (all by
    default; the rest are their clauses, read by their words alone) and the units sharing the most words with
    them (``CANDIDATES`` each) are embedded: at about 10 ms a text on this machine's CPU, that keeps a check
    near 40 ms a sentence. The others count for meaning 0."""
    words = [tokenize(s) for s in sentences]
    span_words = [set(tokenize(s.text)) for s in all_spans]
    lexical = np.array([[_overlap(w, sw) for sw in span_words] for w in words], dtype=np.float32).reshape(
        len(sentences), len(all_spans))
    single = {s.units[0]: j for j, s in enumerate(all_spans) if len(s.units) == 1}
    keep: set[int] = set()
    for row in range(len(sentences) if choosing is None else choosing):
        keep.update(sorted(single, key=lambda k: -lexical[row, single[k]])[:CANDIDATES])
    kept = sorted(keep)
    mine = len(sentences) if choosing is None else choosing
    vecs = vectors([*sentences[:mine], *(" ".join(units[k].split()[:MEANING_WORDS]) for k in kept)])
    unit_cos = np.full((len(sentences), len(units)), -1.0, dtype=np.float32)
    if kept:
        unit_cos[:mine, kept] = vecs[:mine] @ vecs[mine:].T
    cos = (np.stack([unit_cos[:, list(s.units)].max(axis=1) for s in all_spans], axis=1) if all_spans
           else unit_cos[:, :0])
    meaning = np.clip((cos - _COSINE_FLOOR) / (_COSINE_TOP - _COSINE_FLOOR), 0.0, 1.0)
    return Scored(MEANING_WEIGHT * meaning + (1 - MEANING_WEIGHT) * lexical, cos, unit_cos)


# ----- the signals -------------------------------------------------------------------------------------------------
_GENERAL = re.compile(r"\b(?:typically|generally|usually|often|commonly|frequently|important|crucial|essential|vital|"
                      r"helps?|ensures?|ensuring|overall|significantly|potentially|various|key|likely|may|might|can|"
                      r"could|also|further|additionally|furthermore|moreover|thereby|leading to|resulting in|"
                      r"contributes?|benefits?|enhances?|improves?|promotes?)\b", re.IGNORECASE)


def _bigrams(tokens: Sequence[str]) -> set[tuple[str, str]]:
    return set(zip(tokens, tokens[1:], strict=False))


def _run(a: Sequence[str], b: Sequence[str]) -> int:
    """The longest run of ``a``'s tokens that ``b`` has in the same order."""
    best, prev = 0, [0] * (len(b) + 1)
    for x in a:
        cur = [0] * (len(b) + 1)
        for j, y in enumerate(b, 1):
            if x == y:
                cur[j] = prev[j - 1] + 1
                best = max(best, cur[j])
        prev = cur
    return best


_NEGATORS = {"no", "not", "never", "none", "neither", "nor", "cannot", "without"}
_PIECE = re.compile(r";\s+|,?\s+(?:and|but|while|whereas|although)\s+(?=(?:a|an|the|all|it|its|they|this|these|[A-Z]\w*)\b)")


def negation_window(claim: str, evidence: str) -> str:
    """The part of the evidence sentence that says what the claim says: from the first to the last of the claim's
    words in it (with the small words and any "no" or "not" just before), and of that only the clauses holding
    two of its words or more. A heading the PDF ran into the sentence ("Resources Not Affected The site covers
    …") or a neighbouring clause ("… would not affect wetlands; it would disturb 12 acres") is not what the
    claim says, so its "not" does not count."""
    mine = set(tokenize(claim))
    words = evidence.split()
    hit = [i for i, w in enumerate(words) if set(tokenize(w)) & mine]
    if not hit:
        return evidence
    start, end = hit[0], hit[-1]
    while start > 0 and (not tokenize(words[start - 1]) or words[start - 1].lower().strip(",;:") in _NEGATORS) \
            and not re.search(r"[.;:]$", words[start - 1]):
        start -= 1
    window = " ".join(words[start:end + 1])
    pieces = [p for p in _PIECE.split(window) if len(set(tokenize(p)) & mine) >= 2]
    return " ".join(pieces) if pieces else window


def evidence_unit(row: int, span: Span, scored: Scored) -> int:
    """The one unit of a span the sentence is closest to in meaning: where its negation is read."""
    return max(span.units, key=lambda u: scored.unit_cosine[row, u])


def signals(claim: str, row: int, best: int, all_spans: Sequence[Span], units: Sequence[str], scored: Scored,
            passage_text: str, all_words: set[str], differs: dict[str, int], weakest: float) -> dict[str, float]:
    """The signals of one claim (row ``row`` of ``scored``) whose evidence is span ``best``."""
    tokens = tokenize(claim)
    span = all_spans[best]
    ev_tokens = tokenize(span.text)
    ev_set = set(ev_tokens)
    pairs = _bigrams(tokens)
    neg_ev = negation_window(claim, units[evidence_unit(row, span, scored)])
    return {
        "cosine": float(max(scored.cosine[row, best], 0.0)),
        "overlap": _overlap(tokens, ev_set),
        "overlap_all": _overlap(tokens, all_words),
        "bigrams": (len(pairs & _bigrams(ev_tokens)) / len(pairs)) if pairs else 0.0,
        "run": _run(tokens, ev_tokens) / len(tokens) if tokens else 0.0,
        "novel": math.log1p(sum(w not in all_words for w in tokens)),
        "numbers": float(differs.get("number", 0)),
        "names": float(differs.get("name", 0)),
        "dates": float(differs.get("date", 0)),
        "negation": float(is_negated(claim) != is_negated(neg_ev)),
        "weakest": weakest,
        "general": float(len(_GENERAL.findall(claim))),
        "words": math.log1p(len(tokens)),
    }

"""Does each sentence of an answer stand on its sources? The offline support checker: no language model, only the
bundled embedder (meaning), word overlap (the one tokenizer) and rules for the facts a sentence states (numbers with
their units, percentages, dates and years, multi-word names). It is meant to run on every answer.

Each sentence of the answer gets a status:
- ``supported``: its best-matching span in the sources says the same, and every fact it states is in that span;
- ``partly supported``: the span says part of it, or says it with another number, date or name (``differs`` names
  what differs);
- ``unsupported``: no span says it;
- ``no source to check``: the answer had no sources (mode *none*), or it cites sources and this sentence cites
  none.
The evidence of each mark is its best span: the source's number, its page and the span's text.

Citations are checked too: a marker pointing to no source is invalid; a sentence whose cited source does not hold
its evidence while another source does is misattributed. Both are counted and listed.

The thresholds are the checker's own (``SUPPORTED_AT``, ``PARTLY_AT``); what they are worth is measured against a
table of sentence–passage pairs from the sample EIS (tests/qa/test_support.py, bench/support.py), and, once experts
have labelled answers, against them.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from lib.core.text import tokenize
from lib.core.verdict import is_negated
from lib.models.embedding import get_exact_embedder
from lib.models.extractive import split_sentences
from lib.qa.citations import cited_numbers

SUPPORTED = "supported"
PARTLY = "partly supported"
UNSUPPORTED = "unsupported"
NO_SOURCE = "no source to check"
NOT_JUDGED = "not judged"  # the judge checker's only: its reply gave this sentence no valid verdict (a failure)
NOTHING = "nothing to check"  # a verdict only: the answer states no claim of its own (a bare yes or no)
STATUSES = (SUPPORTED, PARTLY, UNSUPPORTED, NO_SOURCE, NOT_JUDGED)
CHECKER = "offline"

SUPPORTED_AT = 0.62  # the combined score at which a span is taken to say the same thing
PARTLY_AT = 0.40  # the score at which it says part of it
MEANING_WEIGHT = 0.5  # the combined score: this much meaning (rescaled cosine), the rest word overlap
_COSINE_FLOOR, _COSINE_TOP = 0.25, 0.85  # cosines rescaled to 0–1 between these (MiniLM's unrelated/same range)
MIN_WORDS = 3
NEAR = 0.1  # a span this close to the best, whose facts agree with the sentence, is its evidence instead


@dataclass(frozen=True)
class Passage:
    """A numbered source as the answer saw it."""

    n: int
    text: str
    page: str = ""  # "p. 12", "pp. 12–13" or ""


@dataclass
class SentenceCheck:
    text: str
    status: str
    score: float | None
    evidence: dict | None  # {"source": n, "page": "p. 12", "text": the span}
    differs: list[str] = field(default_factory=list)  # "12 miles (p. 12 says 21 miles)"
    cites: list[int] = field(default_factory=list)
    holds: dict[int, bool] = field(default_factory=dict)  # each cited source: does it hold this sentence's evidence?


@dataclass
class SupportReport:
    checker: str
    verdict: str
    sentences: list[SentenceCheck]
    citations: dict  # {"valid": n, "invalid": [markers], "misattributed": [{"sentence", "cited", "found_in"}]}
    failures: list[dict] = field(default_factory=list)  # the judge's: sentences it gave no valid verdict, and why

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(STATUSES, 0)
        for s in self.sentences:
            out[s.status] += 1
        return out

    def summary(self) -> str:
        """One line: "4 of 5 sentences supported · 1 number differs from p. 12 · 1 invalid citation"."""
        checkable = [s for s in self.sentences if s.status not in (NO_SOURCE, NOT_JUDGED)]
        if not self.sentences:
            return "nothing to check: the answer states no claim of its own (a bare yes or no, or a few words)"
        if not checkable and any(s.status == NOT_JUDGED for s in self.sentences):
            return (f"{sum(s.status == NOT_JUDGED for s in self.sentences)} sentence(s) the judge gave no valid "
                    "verdict: nothing was checked")
        if not checkable:
            return "no sentence could be checked: there is no source to check it against"
        counts = self.counts()
        parts = [f"{counts[SUPPORTED]} of {len(self.sentences)} sentence{'s' if len(self.sentences) != 1 else ''} "
                 "supported"]
        for status, words in ((PARTLY, "partly supported"), (UNSUPPORTED, "unsupported"),
                              (NO_SOURCE, "not checked (no citation)")):
            if counts[status]:
                parts.append(f"{counts[status]} {words}")
        differs = [(d, s.evidence) for s in checkable for d in s.differs]
        if differs:
            page = (differs[0][1] or {}).get("page") or f"source [{(differs[0][1] or {}).get('source')}]"
            parts.append(f"{len(differs)} fact{'s' if len(differs) > 1 else ''} differ{'' if len(differs) > 1 else 's'}"
                         f" from {page}")
        if self.citations["invalid"]:
            parts.append(f"{len(self.citations['invalid'])} invalid citation(s)")
        if self.citations["misattributed"]:
            parts.append(f"{len(self.citations['misattributed'])} citation(s) point to the wrong source")
        if self.failures:
            parts.append(f"{len(self.failures)} sentence(s) the judge gave no valid verdict")
        return " · ".join(parts)

    def citation_precision(self) -> tuple[int, int]:
        """(citations that hold their sentence's evidence, all citations): each marker of each checked sentence,
        counted per sentence; a marker that points to no source holds nothing."""
        pairs = [s.holds.get(n, False) for s in self.sentences if s.status not in (NO_SOURCE, NOT_JUDGED)
                 for n in s.cites]
        return sum(pairs), len(pairs)

    def quoted_from(self, n: int) -> tuple[str, ...]:
        """What the answer takes from source ``n``, to highlight on its page: each sentence citing it (its claim,
        without markers) and, where the check found that source backs it, the span that does."""
        out: list[str] = []
        for s in self.sentences:
            if n not in s.cites:
                continue
            ev = s.evidence or {}
            if s.status in (SUPPORTED, PARTLY) and ev.get("source") == n and ev.get("text"):
                out.append(str(ev["text"]))
            out.append(bare(s.text))
        return tuple(dict.fromkeys(t for t in out if t.strip()))

    def marks(self, limit: int | None = None) -> list[dict]:
        """Each sentence's mark as pages, scores and exports keep it: text, status, score, the evidence's source,
        page and span, and what differs."""
        return [{"text": s.text, "status": s.status, "score": s.score,
                 "source": (s.evidence or {}).get("source"), "page": (s.evidence or {}).get("page") or "",
                 "evidence": (s.evidence or {}).get("text") or "", "differs": list(s.differs)}
                for s in self.sentences[:limit]]

    def as_dict(self) -> dict:
        return {"checker": self.checker, "verdict": self.verdict,
                "sentences": [{k: v for k, v in asdict(s).items()} for s in self.sentences],
                "citations": self.citations, "failures": self.failures, "summary": self.summary(),
                "marks": self.marks()}


# ----- facts a sentence states -----------------------------------------------------------------------------------
_UNIT = (r"(?:percent|%|acres?|miles?|mi|feet|ft|foot|meters?|m|km|kilometers?|hectares?|ha|tons?|pounds?|lbs?|"
         r"gallons?|days?|years?|months?|hours?|dB[A]?|decibels?|MW|megawatts?|kV|people|persons|workers|jobs|"
         r"employees|sites?|species|households|vehicles|trips|structures|buildings|wells|dollars)")
_NUMBER = re.compile(r"(?<![\w.])(\$?\d{1,3}(?:,\d{3})+|\$?\d+(?:\.\d+)?)(?:\s*(" + _UNIT + r"))?(?![\w])",
                     re.IGNORECASE)
_NAME = re.compile(r"(?<!^)(?<![.!?]\s)\b([A-Z][a-z]+(?:\s+(?:of|the|and|de|la)?\s*[A-Z][a-z]+)+)\b")
_NUMBER_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
                 "eight": "8", "nine": "9", "ten": "10"}


def _norm_number(s: str) -> str:
    return s.replace(",", "").replace("$", "").rstrip("0").rstrip(".") if "." in s else s.replace(",", "").replace("$", "")


_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|"
          r"Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.?")
_DATE = re.compile(rf"\b{_MONTH}\s+\d{{1,2}}(?:,\s*\d{{4}})?\b|\b\d{{1,2}}\s+{_MONTH}\s+\d{{4}}\b|\b{_MONTH},?\s+\d{{4}}\b")


def _date_key(s: str) -> str:
    return " ".join(re.sub(r"[.,]", " ", s.lower()).split())


def facts(sentence: str) -> list[tuple[str, str, str]]:
    """(kind, key, as written) for each date, each number (with its unit), and each multi-word name the sentence
    states. Citation markers are not facts, and the numbers of a date belong to the date."""
    text = re.sub(r"\[\s*\d[\d,;\s–-]*\]", " ", sentence)
    out = [("date", _date_key(m.group(0)), m.group(0)) for m in _DATE.finditer(text)]
    text = _DATE.sub(" ", text)
    for m in _NUMBER.finditer(text):
        out.append(("number", _norm_number(m.group(1)), m.group(0).strip()))
    for m in _NAME.finditer(text):
        out.append(("name", m.group(1).lower(), m.group(1)))
    return out


def _numbers_in(text: str) -> dict[str, list[str]]:
    """The numbers a text states, normalised, each with how it is written ("21 miles")."""
    out: dict[str, list[str]] = {}
    for m in _NUMBER.finditer(text):
        out.setdefault(_norm_number(m.group(1)), []).append(m.group(0).strip())
    for w, d in _NUMBER_WORDS.items():
        if re.search(rf"\b{w}\b", text, re.IGNORECASE):
            out.setdefault(d, []).append(w)
    return out


def _differing(sentence: str, evidence: str) -> list[str]:
    """The facts of ``sentence`` the evidence does not hold, each said with what the evidence has instead where
    it has a number in the same unit."""
    ev_numbers = _numbers_in(_DATE.sub(" ", evidence))
    ev_dates = {_date_key(m.group(0)) for m in _DATE.finditer(evidence)}
    ev_lower = " ".join(evidence.lower().split())
    out = []
    for kind, key, written in facts(sentence):
        if kind == "date":
            if key not in ev_dates and not any(d.startswith(key) for d in ev_dates):
                out.append(f"{written} (not in the source)")
        elif kind == "number":
            if key in ev_numbers:
                continue
            unit = re.sub(r"^[\d$.,\s]+", "", written).lower()
            instead = [w for ws in ev_numbers.values() for w in ws if unit and w.lower().endswith(unit)]
            out.append(f"{written} (the source says {instead[0]})" if instead else f"{written} (not in the source)")
        elif key not in ev_lower and not re.search(r"\b" + "".join(w[0] for w in written.split() if w[0].isupper())
                                                   + r"\b", evidence):
            out.append(f"{written} (not in the source)")  # nor its initials ("EIS" for the name spelled out)
    return out


# ----- spans and scores ------------------------------------------------------------------------------------------
def _spans(passages: Sequence[Passage]) -> tuple[list[tuple[int, str, str]], list[tuple[int, ...]]]:
    """(source number, page, text) for each sentence of each source and each pair of neighbouring sentences (a
    paraphrase may join two), and for each span the indexes of its sentences."""
    spans: list[tuple[int, str, str]] = []
    parts: list[tuple[int, ...]] = []
    sentences: list[str] = []
    for p in passages:
        sents = [s for s in split_sentences(p.text) if len(s.split()) >= MIN_WORDS]
        first = len(sentences)
        sentences += sents
        for k, s in enumerate(sents):
            spans.append((p.n, p.page, s))
            parts.append((first + k,))
        for k in range(len(sents) - 1):
            spans.append((p.n, p.page, f"{sents[k]} {sents[k + 1]}"))
            parts.append((first + k, first + k + 1))
    return spans, parts


def _overlap(a: list[str], b: set[str]) -> float:
    """The share of the sentence's content words that the span holds."""
    return sum(w in b for w in a) / len(a) if a else 0.0


_VECTORS: dict[str, np.ndarray] = {}  # sentence text -> exact vector: a source checked again is not embedded again
_VECTORS_MAX = 20_000


def _vectors(texts: Sequence[str]) -> np.ndarray:
    """Exact vectors of ``texts``, from the cache where it has them; safe from several threads (the cache may be
    emptied by another between two looks, so what is read is kept here)."""
    got = {t: _VECTORS.get(t) for t in dict.fromkeys(texts)}
    todo = [t for t, v in got.items() if v is None]
    if todo:
        fresh = dict(zip(todo, get_exact_embedder().embed(todo), strict=True))
        got.update(fresh)
        if len(_VECTORS) + len(fresh) > _VECTORS_MAX:
            _VECTORS.clear()
        _VECTORS.update(fresh)
    return np.stack([got[t] for t in texts]) if texts else np.zeros((0, 1), dtype=np.float32)


CANDIDATES = 8  # per answer sentence, the source sentences with the most words in common are compared by meaning


def _scores(sentences: Sequence[str], spans: Sequence[tuple[int, str, str]], parts: Sequence[tuple[int, ...]],
            span_sentences: Sequence[str]) -> np.ndarray:
    """Combined scores, sentences × spans: meaning (the exact embedder's cosine, rescaled; a span of two sentences
    means what the closer of the two means) and word overlap (over the whole span). Only the source sentences that
    share the most words with some answer sentence are embedded (``CANDIDATES`` each); the others, sharing fewer
    words, count for meaning 0."""
    words = [tokenize(s) for s in sentences]
    span_words = [set(tokenize(s)) for _, _, s in spans]
    lexical = np.array([[_overlap(w, sw) for sw in span_words] for w in words], dtype=np.float32)
    single = {ix[0]: j for j, ix in enumerate(parts) if len(ix) == 1}  # source sentence -> its own span
    keep: set[int] = set()
    for row in range(len(sentences)):
        order = sorted(single, key=lambda k: -lexical[row, single[k]])
        keep.update(order[:CANDIDATES])
    kept = sorted(keep)
    vecs = _vectors([*sentences, *(span_sentences[k] for k in kept)])
    cos_kept = vecs[: len(sentences)] @ vecs[len(sentences):].T
    cos = np.full((len(sentences), len(span_sentences)), -1.0, dtype=np.float32)
    if kept:
        cos[:, kept] = cos_kept
    cos_span = np.stack([cos[:, list(ix)].max(axis=1) for ix in parts], axis=1) if parts else cos[:, :0]
    meaning = np.clip((cos_span - _COSINE_FLOOR) / (_COSINE_TOP - _COSINE_FLOOR), 0.0, 1.0)
    return MEANING_WEIGHT * meaning + (1 - MEANING_WEIGHT) * lexical


_CLAUSE = re.compile(r",?\s+(?:and|but|while|whereas|although)\s+(?=(?:a|an|the|all|it|they|this|these|[A-Z]\w*)\b)"
                     r"|;\s+", re.IGNORECASE)


def clauses(sentence: str) -> list[str]:
    """The sentence's clauses joined by "and", "but", "while" or a semicolon, each with at least three content
    words; the sentence alone where it has fewer than two."""
    parts = [p.strip(" ,.") for p in _CLAUSE.split(sentence)]
    parts = [p for p in parts if len(tokenize(p)) >= 3]
    return parts if len(parts) >= 2 else [sentence]


def _status(score: float, differs: list[str]) -> str:
    if score >= SUPPORTED_AT:
        return PARTLY if differs else SUPPORTED
    if score >= PARTLY_AT:
        return PARTLY
    return UNSUPPORTED


# citation markers and the page references that go with them ("[2]", "[1] (p. 8)", "(pp. 71–72)"): not the claim
_PLACE = r"\((?:[^()\n]*,\s*)?pp?\.\s*[\d–-]+\)"  # "(p. 8)", "(CONUS Interceptor Site, p. 8)"
_MARKERS = re.compile(r"\s*\[\s*\d[\d,;\s–-]*\](?:\s*" + _PLACE + r")?|\s*" + _PLACE)
_OPENING = re.compile(r"^\s*\[\s*\d[\d,;\s–-]*\]")
_AFTER_STOP = re.compile(r"([.!?])[ \t]+(\[\s*\d[\d,;\s–-]*\](?:\s*" + _PLACE + r")?|" + _PLACE + r")(?=\s|$)")


def answer_sentences(answer: str) -> tuple[list[str], dict[int, list[int]]]:
    """The answer's sentences that state a claim (three content words or more: "Yes." states none), and, for a
    sentence without a marker, the markers of the run it belongs to: "[1] (p. 8) A. B." opens a run of its
    paragraph that B belongs to; a marker at a sentence's end is that sentence's alone, so "A. B [1]." leaves A
    with no citation."""
    sentences: list[str] = []
    inherited: dict[int, list[int]] = {}
    # "A. [1] (p. 8) B. [2]": a marker after a full stop belongs to the sentence it follows (the extractive
    # baseline writes them so); put it before the stop, so the splitter leaves it with that sentence
    answer = _AFTER_STOP.sub(lambda m: f" {m.group(2)}{m.group(1)}", answer or "")
    for para in re.split(r"\n+", answer):
        first = len(sentences)
        sentences += [s for s in split_sentences(para) if len(tokenize(re.sub(r"\[[^\]]*\]", " ", s))) >= 3]
        opened: list[int] = []
        for i in range(first, len(sentences)):
            cites = sorted(cited_numbers(sentences[i], max_n=99))
            if cites and _OPENING.match(sentences[i]):
                opened = cites
            elif not cites and opened:
                inherited[i] = opened
    return sentences, inherited


def bare(sentence: str) -> str:
    """The sentence without its citation markers and page references: the claim itself."""
    return _MARKERS.sub("", sentence).strip()


def check(answer: str, passages: Sequence[Passage]) -> SupportReport:
    """Check every sentence of ``answer`` against the numbered ``passages`` it was given (none for mode *none*)."""
    sentences, inherited = answer_sentences(answer)
    numbers = {p.n for p in passages}
    cited_all = cited_numbers(answer, max_n=99)  # a bracketed year ("[2013]") is no citation
    invalid = sorted(n for n in cited_numbers(answer, max_n=99) if n not in numbers)  # not a bracketed year
    checks: list[SentenceCheck] = []
    misattributed = []
    spans, parts = _spans(passages)
    by_n = {p.n: p.text for p in passages}
    span_sentences = [spans[j][2] for j, ix in enumerate(parts) if len(ix) == 1]
    todo = []
    for i, s in enumerate(sentences):
        cites = sorted(cited_numbers(s, max_n=99)) or inherited.get(i, [])
        if not spans or (cited_all and not cites):
            checks.append(SentenceCheck(s, NO_SOURCE, None, None, cites=cites))
        else:
            checks.append(SentenceCheck(s, UNSUPPORTED, None, None, cites=cites))
            todo.append(i)
    if todo:
        claims = [bare(sentences[i]) for i in todo]
        pieces = [clauses(b) for b in claims]
        flat = [*claims, *(c for ps in pieces if len(ps) > 1 for c in ps)]
        scores = _scores(flat, spans, parts, span_sentences)
        extra = len(claims)
        for row, i in enumerate(todo):
            c = checks[i]
            allowed = [j for j, (n, _, _) in enumerate(spans) if not c.cites or n in c.cites]
            pool = allowed or list(range(len(spans)))
            best = max(pool, key=lambda j: scores[row, j])
            n, page, text = spans[best]
            c.score = round(float(scores[row, best]), 3)
            c.evidence = {"source": n, "page": page, "text": text}
            # the facts are looked for in the whole source the evidence comes from: a paraphrase may take a name
            # from the sentence before; a number changed is in none of it
            c.differs = _differing(claims[row], by_n[n]) if c.score >= PARTLY_AT else []
            if c.differs:  # a table repeats one sentence with other figures: a near-best span whose facts agree wins
                near = sorted((j for j in pool if j != best and scores[row, j] >= max(SUPPORTED_AT, c.score - NEAR)),
                              key=lambda j: -scores[row, j])
                agreeing = next((j for j in near if not _differing(claims[row], by_n[spans[j][0]])
                                 and spans[j][0] != n), None)
                if agreeing is not None:
                    n, page, text = spans[agreeing]
                    c.score = round(float(scores[row, agreeing]), 3)
                    c.evidence = {"source": n, "page": page, "text": text}
                    c.differs = []
            if c.score >= PARTLY_AT and is_negated(claims[row]) != is_negated(c.evidence["text"]):
                where = c.evidence["page"] or f"source [{c.evidence['source']}]"
                c.differs.append(f"it says 'not' where {where} does not" if is_negated(claims[row])
                                 else f"{where} says 'not' where it does not")
            c.status = _status(c.score, c.differs)
            if len(pieces[row]) > 1:  # a sentence holds only as well as its weakest clause
                rows = range(extra, extra + len(pieces[row]))
                extra += len(pieces[row])
                weakest = min(max(float(scores[r, j]) for j in pool) for r in rows)
                if c.status == SUPPORTED and weakest < PARTLY_AT:
                    c.status = PARTLY
                    c.differs.append("a part of it is in no source")
            for cited in (n for n in c.cites if n in numbers):  # a citation holds when its own source says at least part of the sentence
                mine = [j for j in range(len(spans)) if spans[j][0] == cited]
                c.holds[cited] = bool(mine) and max(float(scores[row, j]) for j in mine) >= PARTLY_AT
            if c.cites and c.status != SUPPORTED:
                anywhere = max(range(len(spans)), key=lambda j: scores[row, j])
                if spans[anywhere][0] not in c.cites and scores[row, anywhere] >= SUPPORTED_AT:
                    misattributed.append({"sentence": c.text, "cited": c.cites, "found_in": spans[anywhere][0]})
    valid = sum(1 for c in checks for n in c.cites if n in numbers)
    return SupportReport(CHECKER, overall(checks), checks,
                         {"valid": valid, "invalid": invalid, "misattributed": misattributed})


def overall(checks: Sequence[SentenceCheck]) -> str:
    """*supported* only when every checkable sentence is, *unsupported* when none is (even in part); *no source to
    check* when no sentence could be checked (an empty value, never a verdict made of nothing), and *not judged*
    when the judge left a sentence without a valid verdict (an incomplete check claims nothing)."""
    if not checks:
        return NOTHING
    if any(c.status == NOT_JUDGED for c in checks):
        return NOT_JUDGED
    checkable = [c for c in checks if c.status != NO_SOURCE]
    if not checkable:
        return NO_SOURCE
    if all(c.status == SUPPORTED for c in checkable):
        return SUPPORTED
    if not any(c.status in (SUPPORTED, PARTLY) for c in checkable):
        return UNSUPPORTED
    return PARTLY


SIGNS = {SUPPORTED: "✓", PARTLY: "◐", UNSUPPORTED: "✗", NO_SOURCE: "–", NOT_JUDGED: "?"}


def marks_line(marks: Sequence[dict]) -> str:
    """An answer's marks as one cell of an export: "✓ supported p. 3 | ◐ partly supported p. 12 (differs: …)"."""
    return " | ".join(f"{SIGNS.get(m['status'], '?')} {m['status']}" + (f" {m['page']}" if m.get("page") else "")
                      + (f" (differs: {'; '.join(m['differs'])})" if m.get("differs") else "") for m in marks)


def passages_from_text(text: str) -> list[Passage]:
    """Passages one per paragraph (blank-line separated), numbered [1], [2]… in order; a leading "[n]" on a
    paragraph is taken as its number's marker and dropped."""
    paras = [p.strip() for p in re.split(r"\n\s*\n", text or "") if p.strip()]
    return [Passage(i, re.sub(r"^\[\d+\]\s*", "", p)) for i, p in enumerate(paras, start=1)]


PagesOf = Callable[[str], Sequence]  # a document id -> its pages (each with .number and .text)


def pdf_pages(contexts: Sequence[dict], pages_of: PagesOf) -> list[tuple[str, int, str]]:
    """(document id, page number, text) of each page a full-PDF answer was given, up to the last page kept in its
    window, in order. Contexts that did not record their document or their last kept page give none."""
    out = []
    for c in contexts:
        doc_id, through = c.get("doc_id"), c.get("kept_through")
        if not doc_id or through is None:
            continue
        out += [(doc_id, p.number, p.text) for p in pages_of(doc_id)
                if p.number <= through and (p.text or "").strip()]
    return out


def pdf_passages(contexts: Sequence[dict], pages_of: PagesOf) -> list[Passage]:
    """A full-PDF answer's sources: one passage per page it was given (``pdf_pages``), numbered in that order."""
    return [Passage(i, text, f"p. {number}") for i, (_, number, text) in enumerate(pdf_pages(contexts, pages_of), 1)]


def passages_of(contexts: Sequence[dict], mode: str) -> list[Passage]:
    """The numbered passages an answer was given, from its stored contexts: RAG's numbered sources, or the one
    gold passage as [1]; none for modes *none* and *pdf* (a whole PDF is no set of passages to cite)."""
    if mode not in ("rag", "gold"):
        return []
    out = []
    for i, c in enumerate(contexts, start=1):
        ps, pe = c.get("page_start"), c.get("page_end")
        page = "" if ps is None else (f"p. {ps}" if pe in (None, ps) else f"pp. {ps}–{pe}")
        if not page and mode == "gold":
            page = "the gold passage"
        out.append(Passage(int(c.get("n") or i), str(c.get("text") or ""), page))
    return out

"""Does each sentence of an answer stand on its sources? The offline support checker: no language model, meant to
run on every answer.

Each sentence is first sorted (``claims.kind``): a lead-in, a refusal or a remark about the sources makes no claim
and gets no mark (``no claim``, counted apart); a claim that the sources do not say something is ``not checked``.
Each claim's best evidence span is found (``support_signals``), its signals read, and the fitted classifier
(``support_model``) gives the chance that all of it, and that part of it, is in its sources. The cuts chosen on
labelled dev data make the mark:
- ``supported`` (✓): all of it is there, and no number, date, name or "not" differs from its evidence;
- ``partly supported`` (◐): part of it is;
- ``unsupported`` (✗): none of it is, or its evidence contradicts it (another number in the same unit, a "not");
- ``not checked`` (○): between the cuts, where the classifier cannot tell;
- ``no source to check``: the answer had no sources (mode *none*), or it cites sources and this sentence cites none.
The evidence of each mark is its best span: the source's number, its page and the span's text; ``differs`` names
what differs.

Citations are checked too: a marker pointing to no source is invalid; a sentence whose cited source does not hold
its evidence while another source does is misattributed. Both are counted and listed. A closed answer's yes or no
is checked against its evidence (``check_verdict``).

What the marks are worth is measured on the labelled set in data/support/ (bench/support.py; the figures travel
with the fitted model and are shown in the legend and on hover).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from lib.core.sentences import split_sentences
from lib.core.text import tokenize
from lib.core.verdict import NO, YES, is_negated
from lib.documents.mentions import DocRef
from lib.qa import claims, support_documents, support_model, support_signals
from lib.qa.citations import PLACE, bare, cited_numbers
from lib.qa.context_passage import ContextPassage
from lib.qa.support_documents import notes as document_notes  # noqa: F401 - on the pages, through this face
from lib.qa.support_report import (  # noqa: F401 - the report's types are this module's face too
    AGREES,
    CONTRADICTED,
    Mark,
    Passage,
    SentenceCheck,
    SupportReport,
    read_marks,
)
from lib.qa.support_status import (  # noqa: F401 - the statuses are this module's face too
    NO_CLAIM,
    NO_SOURCE,
    NOT_CHECKED,
    NOT_JUDGED,
    NOTHING,
    PARTLY,
    SIGNS,
    STATUSES,
    SUPPORTED,
    UNMARKED,
    UNSUPPORTED,
)

CHECKER = "offline"

NEAR = 0.1  # a span this close to the best, whose facts agree with the sentence, is its evidence instead


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


def _unit_of(written: str) -> str:
    return re.sub(r"^[\d$.,\s]+", "", written).lower()


def differing(sentence: str, evidence: str) -> list[tuple[str, str]]:
    """(kind, what) for each fact of ``sentence`` the evidence does not hold, each said with what the evidence has
    instead where it has a number in the same unit."""
    ev_numbers = _numbers_in(_DATE.sub(" ", evidence))
    ev_dates = {_date_key(m.group(0)) for m in _DATE.finditer(evidence)}
    ev_lower = " ".join(evidence.lower().split())
    out = []
    for kind, key, written in facts(sentence):
        if kind == "date":
            if key not in ev_dates and not any(d.startswith(key) for d in ev_dates):
                out.append((kind, f"{written} (not in the source)"))
        elif kind == "number":
            unit = re.sub(r"^[\d$.,\s]+", "", written).lower()
            # the same number in the same unit (or written without one on either side): "120 acres" is not "120 miles"
            if key in ev_numbers and (not unit or any(_unit_of(w) in ("", unit) for w in ev_numbers[key])):
                continue
            instead = [w for ws in ev_numbers.values() for w in ws if unit and w.lower().endswith(unit)]
            out.append((kind, f"{written} (the source says {instead[0]})" if instead
                        else f"{written} (not in the source)"))
        elif key not in ev_lower and not re.search(r"\b" + "".join(w[0] for w in written.split() if w[0].isupper())
                                                   + r"\b", evidence):
            out.append((kind, f"{written} (not in the source)"))  # nor its initials ("EIS" for the name spelled out)
    return out


_CLAUSE = re.compile(r",?\s+(?:and|but|while|whereas|although)\s+(?=(?:a|an|the|all|it|they|this|these|[A-Z]\w*)\b)"
                     r"|;\s+", re.IGNORECASE)


def clauses(sentence: str) -> list[str]:
    """The sentence's clauses joined by "and", "but", "while" or a semicolon, each with at least three content
    words; the sentence alone where it has fewer than two."""
    parts = [p.strip(" ,.") for p in _CLAUSE.split(sentence)]
    parts = [p for p in parts if len(tokenize(p)) >= 3]
    return parts if len(parts) >= 2 else [sentence]


# where a run of citations opens, and a marker written after a full stop (citations.PLACE: "(p. 8)")
_OPENING = re.compile(r"^\s*\[\s*\d[\d,;\s–-]*\]")
_AFTER_STOP = re.compile(r"([.!?])[ \t]+(\[\s*\d[\d,;\s–-]*\](?:\s*" + PLACE + r")?|" + PLACE + r")(?=\s|$)")


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


def _pick(row: int, pool: Sequence[int], combined, claim: str, all_spans, by_n: dict[int, str]) -> int:
    """The evidence: the best-scoring span of ``pool``; a near-best one whose facts agree with the claim and that
    comes from another source wins (a table repeats one sentence with other figures)."""
    best = max(pool, key=lambda j: combined[row, j])
    if differing(claim, by_n[all_spans[best].source]):
        floor = combined[row, best] - NEAR
        near = sorted((j for j in pool if j != best and combined[row, j] >= floor
                       and all_spans[j].source != all_spans[best].source), key=lambda j: -combined[row, j])
        return next((j for j in near if not differing(claim, by_n[all_spans[j].source])), best)
    return best


def _mark(chances: tuple[float, float] | None, differs: list[str]) -> str:
    """The mark the fitted cuts give (support_model.RULES); never ✓ where a fact or a negation differs, and ✗
    rather than "not checked" where the evidence contradicts it (another number in the same unit, or a "not")."""
    model = support_model.load()
    if chances is None or model is None:
        return NOT_CHECKED
    full, any_ = chances
    if full >= model.cuts["supported"] and not differs:
        return SUPPORTED
    if any_ >= model.cuts["partly"]:
        return PARTLY
    if any_ < model.cuts["unsupported"] or any(_CONTRADICTS.search(d) for d in differs):
        return UNSUPPORTED
    return NOT_CHECKED


_CONTRADICTS = re.compile(r"\(the source says |says 'not' where")


def check(answer: str, passages: Sequence[Passage], question: str = "", verdict: str | None = None,
          holds_answer: bool = False, documents: Sequence[DocRef] | None = (),
          compared: Sequence[str] | None = None) -> SupportReport:
    """Check every sentence of ``answer`` against the numbered ``passages`` it was given (none for mode *none*).

    Sentences that make no claim (a lead-in, a refusal, a remark about the sources) get no mark; a claim that the
    sources do not say something is "not checked". With ``verdict`` (a closed answer's yes or no) and its
    ``question``, the verdict is checked against the evidence too. ``holds_answer``: the sources are known to
    hold the answer (a gold passage), so a refusal is a missed answer.

    ``documents``: the documents the answer concerns (the question's scope or comparison; by default those its
    passages come from; None: no document is held apart). A claim that names one of them must find its evidence
    in that document's sources, and a claim about several ("both EISs", or naming two) in each one's
    (``support_documents.hold``): "both EISs" means the ``compared`` documents (ids) where the question compared
    some, else every document in view."""
    sentences, inherited = answer_sentences(answer)
    numbers = {p.n for p in passages}
    cited_all = cited_numbers(answer, max_n=99)  # a bracketed year ("[2013]") is no citation
    invalid = sorted(n for n in cited_all if n not in numbers)
    checks: list[SentenceCheck] = []
    misattributed = []
    all_spans, units = support_signals.spans(passages)
    by_n = {p.n: p.text for p in passages}
    words_of = {p.n: set(tokenize(p.text)) for p in passages}
    todo = []
    for i, s in enumerate(sentences):
        cites = sorted(cited_numbers(s, max_n=99)) or inherited.get(i, [])
        kind = claims.kind(bare(s))
        if kind in claims.NO_CLAIM_KINDS:
            checks.append(SentenceCheck(s, NO_CLAIM, None, None, cites=cites, kind=kind))
        elif not all_spans or (cited_all and not cites):
            checks.append(SentenceCheck(s, NO_SOURCE, None, None, cites=cites, kind=kind))
        elif kind == claims.ABSENCE:
            checks.append(SentenceCheck(s, NOT_CHECKED, None, None, cites=cites, kind=kind))
        else:
            checks.append(SentenceCheck(s, UNSUPPORTED, None, None, cites=cites, kind=kind))
            todo.append(i)
    report = SupportReport(CHECKER, NOTHING, checks, {"valid": 0, "invalid": invalid, "misattributed": []})
    docs = None if documents is None else (list(documents) or support_documents.documents_of(passages))
    if todo:
        texts = [bare(sentences[i]) for i in todo]
        pieces = [clauses(t) for t in texts]
        flat = [*texts, *(c for ps in pieces if len(ps) > 1 for c in ps)]
        scored = support_signals.score(flat, all_spans, units, choosing=len(texts))
        combined = scored.combined
        extra = len(texts)
        for row, i in enumerate(todo):
            c, claim = checks[i], texts[row]
            allowed = [j for j, sp in enumerate(all_spans) if not c.cites or sp.source in c.cites]
            pool = allowed or list(range(len(all_spans)))
            best = _pick(row, pool, combined, claim, all_spans, by_n)
            span = all_spans[best]
            c.evidence = {"source": span.source, "page": span.page, "text": span.text}
            found = differing(claim, by_n[span.source])
            weakest = float(combined[row, best])
            if len(pieces[row]) > 1:  # a sentence holds only as well as its weakest clause
                rows = range(extra, extra + len(pieces[row]))
                extra += len(pieces[row])
                weakest = min(max(float(combined[r, j]) for j in pool) for r in rows)
            kinds: dict[str, int] = {}
            for k, _ in found:
                kinds[k] = kinds.get(k, 0) + 1
            # its words are looked for in its evidence's passage, as the classifier was fitted (one passage an
            # answer): words found only in another source, or one it does not cite, do not count for it
            c.signals = support_signals.signals(claim, row, best, all_spans, units, scored, by_n[span.source],
                                                words_of[span.source], kinds, weakest)
            model = support_model.load()
            c.chances = model.chances(c.signals) if model else None
            c.score = round(c.chances[0], 3) if c.chances else None
            c.differs = [what for _, what in found]
            if c.signals["negation"]:
                ev_unit = units[support_signals.evidence_unit(row, span, scored)]
                where = span.page or f"source [{span.source}]"
                c.differs.append(f"it says 'not' where {where} does not" if is_negated(claim)
                                 else f"{where} says 'not' where it does not")
                c.evidence["sentence"] = ev_unit
            # a number the passage holds, but not in the evidence span itself, is no evidence for this claim
            c.differs += [f"{what.split(' (')[0]} (not in the evidence sentence)"
                          for k, what in differing(claim, span.text) if k == "number" and (k, what) not in found
                          and not any(what.split(" (")[0] in d for d in c.differs)]
            if len(pieces[row]) > 1 and weakest < CLAUSE_AT:  # "A, and B": B may be invented
                c.differs.append("a part of it is in no source")
            c.status = _mark(c.chances, c.differs)
            if docs is not None and (concern := support_documents.concerns(claim, docs, compared)):
                support_documents.hold(c, claim, pieces[row], concern, docs, passages, check)
            for cited in (n for n in c.cites if n in numbers):  # a citation holds when its source says part of it
                mine = [j for j, sp in enumerate(all_spans) if sp.source == cited]
                c.holds[cited] = bool(mine) and max(float(combined[row, j]) for j in mine) >= HOLDS_AT
            if c.cites and c.status != SUPPORTED:
                anywhere = max(range(len(all_spans)), key=lambda j: combined[row, j])
                if all_spans[anywhere].source not in c.cites and combined[row, anywhere] >= FOUND_AT:
                    misattributed.append({"sentence": c.text, "cited": c.cites,
                                          "found_in": all_spans[anywhere].source})
    report.citations = {"valid": sum(1 for c in checks for n in c.cites if n in numbers), "invalid": invalid,
                        "misattributed": misattributed}
    report.verdict = overall(checks)
    refusal = next((c for c in checks if c.kind == claims.REFUSAL), None)
    if refusal is not None and holds_answer and passages:
        report.missed = {"sentence": refusal.text, "why": "the sources given hold the answer"}
    if verdict in (YES, NO) and question and passages:
        report.verdict_check = check_verdict(question, verdict, passages, sorted(cited_all & numbers))
    return report


CLAUSE_AT = 0.25  # never ✓ where a clause has fewer than half its content words in any one span (its words alone)
HOLDS_AT = 0.40  # a cited source holds a sentence when its best span scores this (meaning and words combined)
FOUND_AT = 0.62  # a sentence is found in another source than the one cited when a span there scores this

_ASKS = re.compile(r"^(?:does|do|did|is|are|was|were|will|would|can|could|has|have|had|should|shall|must|may)\s+",
                   re.IGNORECASE)
_STATES = re.compile(r"^(?:the |this )?(?:eis|document|passage|text|report|analysis|project)\s+(?:states?|says?|"
                     r"indicates?|mentions?|describes?|conclude|concludes?|show|shows?|identify|identifies)\s+(?:that\s+)?",
                     re.IGNORECASE)


def proposition(question: str) -> str:
    """A closed question as the statement its "yes" asserts, near enough for word and meaning overlap: "Does the
    EIS state that the site covers 865 acres?" → "the site covers 865 acres"."""
    s = _ASKS.sub("", " ".join((question or "").split()).rstrip("?").strip())
    return _STATES.sub("", s)


def check_verdict(question: str, verdict: str, passages: Sequence[Passage], cited: Sequence[int] = ()) -> dict:
    """A closed answer's yes or no against its evidence (the sources it cites, else all it was given).

    The question's statement ("yes" asserts it) is matched to its closest span. Where the classifier finds the
    span says it (✓ cut) once a negation or a differing number is set aside, the span decides: it says the same
    with the same polarity and facts → "yes"; with a "not" where the statement has none (or the reverse), or
    another number in the same unit → "no". A verdict against that is contradicted. Where no span says it that
    closely, the verdict is not checked."""
    pool = [p for p in passages if not cited or p.n in cited] or list(passages)
    statement = proposition(question)
    out = {"verdict": verdict, "status": NOT_CHECKED, "statement": statement, "evidence": "", "page": ""}
    model = support_model.load()
    if model is None or len(tokenize(statement)) < 2:
        return out
    report = check(statement, pool)
    if not report.sentences or not report.sentences[0].signals:
        return out
    c = report.sentences[0]
    aligned = dict(c.signals, negation=0.0, numbers=0.0, dates=0.0)
    if model.chances(aligned)[0] < model.cuts["supported"]:
        return out
    numbers_differ = any("(the source says" in d for d in c.differs)
    implied = NO if (c.signals["negation"] or numbers_differ) else YES
    ev = c.evidence or {}
    out.update(status=AGREES if implied == verdict else CONTRADICTED, implied=implied,
               evidence=ev.get("sentence") or ev.get("text", ""), page=ev.get("page") or f"source [{ev.get('source')}]")
    return out


def overall(checks: Sequence[SentenceCheck]) -> str:
    """*supported* only when every checkable claim is, *unsupported* when none is (even in part); *not checked*
    when some claim could not be decided and none is wrong; *no source to check* when no claim could be checked
    (an empty value, never a verdict made of nothing), and *not judged* when the judge left a sentence without a
    valid verdict (an incomplete check claims nothing). Sentences that make no claim do not count."""
    claims_ = [c for c in checks if c.status != NO_CLAIM]
    if not claims_:
        return NOTHING
    if any(c.status == NOT_JUDGED for c in claims_):
        return NOT_JUDGED
    checkable = [c for c in claims_ if c.status != NO_SOURCE]
    if not checkable:
        return NO_SOURCE
    if all(c.status == SUPPORTED for c in checkable):
        return SUPPORTED
    if all(c.status in (SUPPORTED, NOT_CHECKED) for c in checkable):
        return NOT_CHECKED
    if not any(c.status in (SUPPORTED, PARTLY) for c in checkable):
        return UNSUPPORTED
    return PARTLY




def marks_line(marks: Sequence[Mark]) -> str:
    """An answer's marks as one cell of an export: "✓ supported p. 3 | ◐ partly supported p. 12 (differs: …)"."""
    return " | ".join(f"{SIGNS.get(m.status, '?')} {m.status}" + (f" {m.page}" if m.page else "")
                      + (f" (differs: {'; '.join(m.differs)})" if m.differs else "")
                      + "".join(f" ({n})" for n in support_documents.notes(m.documents))
                      for m in marks)


def passages_from_text(text: str) -> list[Passage]:
    """Passages one per paragraph (blank-line separated), numbered [1], [2]… in order; a leading "[n]" on a
    paragraph is taken as its number's marker and dropped."""
    paras = [p.strip() for p in re.split(r"\n\s*\n", text or "") if p.strip()]
    return [Passage(i, re.sub(r"^\[\d+\]\s*", "", p)) for i, p in enumerate(paras, start=1)]


PagesOf = Callable[[str], Sequence]  # a document id -> its pages (each with .number and .text)


def pdf_pages(contexts: Sequence[ContextPassage], pages_of: PagesOf) -> list[tuple[str, int, str]]:
    """(document id, page number, text) of each page a full-PDF answer was given, up to the last page kept in its
    window, in order. Contexts that did not record their document or their last kept page give none."""
    out = []
    for c in contexts:
        doc_id, through = c.doc_id, c.kept_through
        if not doc_id or through is None:
            continue
        out += [(doc_id, p.number, p.text) for p in pages_of(doc_id)
                if p.number <= through and (p.text or "").strip()]
    return out


def pdf_passages(contexts: Sequence[ContextPassage], pages_of: PagesOf) -> list[Passage]:
    """A full-PDF answer's sources: one passage per page it was given (``pdf_pages``), numbered in that order."""
    names = {c.doc_id: c.doc_name for c in contexts if c.doc_id}
    return [Passage(i, text, f"p. {number}", doc, names.get(doc, ""))
            for i, (doc, number, text) in enumerate(pdf_pages(contexts, pages_of), 1)]


def passages_of(contexts: Sequence[ContextPassage], mode: str) -> list[Passage]:
    """The numbered passages an answer was given, from its stored contexts: RAG's numbered sources, or the one
    gold passage as [1]; none for modes *none* and *pdf* (a whole PDF is no set of passages to cite)."""
    if mode not in ("rag", "gold"):
        return []
    out = []
    several = len({c.doc_id for c in contexts if c.doc_id}) > 1
    for i, c in enumerate(contexts, start=1):
        page = c.pages
        if page and several and c.doc_name:  # "p. 3" alone would not say which EIS's page 3
            page = f"{c.doc_name}, {page}"
        if not page and mode == "gold":
            page = "the gold passage"
        out.append(Passage(c.n or i, c.text, page, c.doc_id, c.doc_name))
    return out

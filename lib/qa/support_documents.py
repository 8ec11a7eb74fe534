"""Claims held to the documents they speak of: a claim that names a document must find its evidence in that
document's sources, and a claim about several ("both EISs", "the two documents", or naming two) in each one's.
A figure of one EIS attributed to the other is caught here: its evidence is in the wrong document's sources.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from lib.documents.mentions import DocRef, distinguish, doc_ref, marked, mentioned, together, without_mentions
from lib.qa.support_report import Passage, SentenceCheck, SupportReport
from lib.qa.support_status import NO_CLAIM, NOT_CHECKED, PARTLY, SUPPORTED, UNSUPPORTED


def documents_of(passages: Sequence[Passage]) -> list[DocRef]:
    """The documents the passages come from, named as their citations name them."""
    seen = dict.fromkeys((p.doc, p.doc_name or p.doc) for p in passages if p.doc)
    return distinguish([doc_ref(d, name, []) for d, name in seen])


def concerns(claim: str, docs: Sequence[DocRef], compared: Sequence[str] | None = None) -> list[str | None]:
    """The documents a claim must find its evidence in: with several in view, those it names (one is enough: its
    name is then read as the document, not as a fact its sources must state); or, where it speaks of several
    together ("both EISs", "the two documents"), those it names if two or more, else the ``compared`` ones (the
    question's comparison), else every document in view. None stands for a document of which the answer had no
    source (a claim about "the two EISs" over sources from one). Empty: the claim is held to no document."""
    if not docs:
        return []
    named: list[str | None] = list(mentioned(claim, docs))
    if together(claim):
        ids: list[str | None] = named if len(named) >= 2 else list(compared or [d.doc_id for d in docs])
        return ids if len(ids) >= 2 else [*ids, None]
    if len(docs) < 2:
        return []  # one document in view: the check as measured (bench/support.py)
    if named and exclusive(claim, docs):  # "only the Goldrush Mine EIS …" speaks of the others too
        return [*named, *(d.doc_id for d in docs if d.doc_id not in named)]
    return named


def exclusive(claim: str, docs: Sequence[DocRef]) -> bool:
    """Does the claim say something of the documents it does not name: "only the Goldrush Mine EIS …", "the
    Goldrush Mine EIS alone …", "unlike the CONUS EIS", "no other EIS"? ("only Alternative B" does not.)"""
    text = marked(claim, docs)
    return bool(re.search(r"\b(?i:only)\s+(?:(?i:the)\s+)?\x00|\x00[^,;.]{0,30}\balone\b|\b(?i:unlike)\s+(?:(?i:the)\s+)?"
                          r"\x00|\b(?i:no\s+other)\s+(?:EIS|document|project)", text))


def hold(c: SentenceCheck, claim: str, parts: Sequence[str], concern: Sequence[str | None], docs: Sequence[DocRef],
         passages: Sequence[Passage], check: Callable[..., SupportReport]) -> None:
    """Hold a claim to each document it concerns. What it says of a document (the clause naming that document
    alone, else the whole claim; ``parts`` are its clauses), its document names put as "it", is checked by
    ``check`` against that document's sources (those it cites, where it cites any). A claim naming one document
    takes that mark; a claim about several is ✓ only when every document's sources back it, ◐ when some do.
    ``c.documents`` says how it stands in each (``notes`` puts that in words)."""
    names = {d.doc_id: d.name for d in docs}
    unnamed = set(concern) - set(mentioned(claim, docs)) if exclusive(claim, docs) else set()
    entries: list[dict] = []
    for doc in concern:
        if doc in unnamed:  # what an exclusive claim says of a document it does not name: no passage can show it
            entries.append({"doc_id": doc, "name": names.get(doc, doc) if doc else "", "status": NOT_CHECKED, "source": None,
                            "page": "", "why": ABOUT_OTHERS})
            continue
        mine = [p for p in passages if doc and p.doc == doc]
        cited = [p for p in mine if p.n in c.cites] if c.cites else mine
        entry: dict = {"doc_id": doc or "", "name": names.get(doc, doc) if doc else "", "status": UNSUPPORTED,
                       "source": None, "page": "", "why": ""}
        if not mine:
            entry["why"] = NO_SOURCE_GIVEN if doc else FROM_ONE
        elif not cited:
            entry["why"] = NONE_CITED
        else:
            # its clauses: those naming it alone, and those naming no document (an invented "and twelve lie in
            # wetlands" is held to every document the claim concerns)
            own = [p for p in parts if len(parts) > 1 and mentioned(p, docs) in ([doc], [])]
            piece = re.sub(r"\b(?i:only)\s+(?=(?:(?i:the)\s+)?[A-Z])", "", " ".join(own) or claim)
            sub = first_claim(check(without_mentions(piece, docs), cited, documents=None))  # "only": of the others
            if sub is None:
                entry["status"] = NOT_CHECKED
            else:
                ev = sub.evidence or {}
                entry.update(status=sub.status, source=ev.get("source"), page=ev.get("page") or "", evidence=ev,
                             differs=list(sub.differs), score=sub.score, signals=sub.signals, chances=sub.chances)
                if sub.status not in (SUPPORTED, PARTLY):
                    entry["why"] = NOT_SAID if sub.status != NOT_CHECKED else NOT_TOLD
        entries.append(entry)
    c.documents = [{k: e[k] for k in ("doc_id", "name", "status", "source", "page", "why")} for e in entries]
    if len(entries) == 1:  # it names one document: its evidence must be there
        e = entries[0]
        c.status = e["status"]
        if "evidence" in e:
            c.evidence, c.differs = e["evidence"], e["differs"]
            c.score, c.signals, c.chances = e["score"], e["signals"], e["chances"]
        else:
            c.score, c.chances = None, None
        return
    good = [e for e in entries if e["status"] in (SUPPORTED, PARTLY)]
    if all(e["status"] == SUPPORTED for e in entries):
        c.status = SUPPORTED
    elif good:
        c.status = PARTLY
    else:
        c.status = NOT_CHECKED if any(e["status"] == NOT_CHECKED for e in entries) else UNSUPPORTED
    if good:
        c.evidence = max(good, key=lambda e: e.get("score") or 0.0)["evidence"]
    scores = [e.get("score") for e in entries]
    c.score = min(scores) if all(x is not None for x in scores) else None  # type: ignore[type-var]
    c.differs = [f"{e['name']}: {d}" for e in entries for d in e.get("differs", [])]


NO_SOURCE_GIVEN = "no source from it was given"
FROM_ONE = "it speaks of several documents, but its sources come from one"
NONE_CITED = "none of its sources is cited"
NOT_SAID = "its sources do not say it"
NOT_TOLD = "the check cannot tell whether its sources say it"
ABOUT_OTHERS = "it says something of this document too (only, unlike, no other), which no passage can show"


def notes(documents: Sequence[dict]) -> list[str]:
    """How a claim stands in the documents it concerns, in words, for each document whose sources do not back
    it: "it names Goldrush Mine Project, but none of its sources is cited"; "CONUS Interceptor Site: no source
    from it was given"."""
    if len(documents) == 1:
        d = documents[0]
        return [f"it names {d['name']}, but {d['why']}"] if d.get("why") else []
    return [d["why"] if d["why"] == FROM_ONE else f"{d['name']}: {d['why']}" for d in documents if d.get("why")]


def first_claim(report: SupportReport) -> SentenceCheck | None:
    return next((s for s in report.sentences if s.status != NO_CLAIM), None)

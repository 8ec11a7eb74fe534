"""What a support check returns (lib/qa/support.py makes it): the numbered sources it checked against
(``Passage``), each sentence's mark with its evidence (``SentenceCheck``), and the whole report with its one-line
summary, its counts and the forms pages and exports keep (``SupportReport``)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from lib.qa import claims
from lib.qa.citations import bare
from lib.qa.support_status import (
    NO_CLAIM,
    NO_SOURCE,
    NOT_CHECKED,
    NOT_JUDGED,
    PARTLY,
    STATUSES,
    SUPPORTED,
    UNMARKED,
    UNSUPPORTED,
)

# the verdict of a closed answer, checked against its evidence
AGREES, CONTRADICTED = "agrees with the evidence", "contradicted by the evidence"


@dataclass(frozen=True)
class Passage:
    """A numbered source as the answer saw it."""

    n: int
    text: str
    page: str = ""  # "p. 12", "pp. 12–13" or ""
    doc: str = ""  # the id of the document it is from, where the answer's sources span several
    doc_name: str = ""  # that document's name, as its citations give it


@dataclass
class SentenceCheck:
    text: str
    status: str
    score: float | None
    evidence: dict | None  # {"source": n, "page": "p. 12", "text": the span}
    differs: list[str] = field(default_factory=list)  # "12 miles (p. 12 says 21 miles)"
    cites: list[int] = field(default_factory=list)
    holds: dict[int, bool] = field(default_factory=dict)  # each cited source: does it hold this sentence's evidence?
    kind: str = claims.CLAIM  # claim, lead-in, refusal, remark or absence (lib/qa/claims.py)
    signals: dict[str, float] = field(default_factory=dict)  # what the classifier read (support_signals)
    chances: tuple[float, float] | None = None  # (everything supported, at least part supported)
    # a claim about several documents, or one that names a document: how it stands in each document it concerns
    # ({"doc_id", "name", "status", "source", "page", "why"}); empty for a claim that names none
    documents: list[dict] = field(default_factory=list)


@dataclass(frozen=True)
class Mark:
    """One sentence's mark as pages, scores and exports keep it: its text and status, the score, and the evidence's
    source number, page and span; what differs; the kind of sentence; how it stands in each document it names."""

    text: str
    status: str
    score: float | None = None
    source: int | None = None
    page: str = ""
    evidence: str = ""
    differs: list[str] = field(default_factory=list)
    kind: str = claims.CLAIM
    documents: list[dict] = field(default_factory=list)

    def as_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Mark:
        """A mark as a score's details or the Ask history stored it (keys an older version did not write take
        their defaults)."""
        return cls(**{f.name: data[f.name] for f in fields(cls) if data.get(f.name) is not None})


def read_marks(stored: object) -> list[Mark]:
    """Stored marks (a list of JSON objects) read back; anything else reads as none."""
    return [Mark.from_json(m) for m in stored if isinstance(m, Mapping)] if isinstance(stored, list) else []


@dataclass
class SupportReport:
    checker: str
    verdict: str
    sentences: list[SentenceCheck]
    citations: dict  # {"valid": n, "invalid": [markers], "misattributed": [{"sentence", "cited", "found_in"}]}
    failures: list[dict] = field(default_factory=list)  # the judge's: sentences it gave no valid verdict, and why
    verdict_check: dict | None = None  # a closed answer's yes/no against its evidence (check_verdict)
    missed: dict | None = None  # a refusal where the sources hold the answer: {"sentence", "evidence"}

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(STATUSES, 0)
        for s in self.sentences:
            out[s.status] += 1
        return out

    def summary(self) -> str:
        """One line: "4 of 5 claims supported · 1 number differs from p. 12 · 1 lead-in set aside"."""
        claims_ = [s for s in self.sentences if s.status != NO_CLAIM]
        checkable = [s for s in claims_ if s.status not in (NO_SOURCE, NOT_JUDGED)]
        tail = self._apart()
        if not claims_:
            head = ("nothing to check: the answer states no claim of its own (a bare yes or no, or a few words)"
                    if not self.sentences else "nothing to check: the answer makes no claim")
            return " · ".join([head, *tail])
        if not checkable and any(s.status == NOT_JUDGED for s in claims_):
            return (f"{sum(s.status == NOT_JUDGED for s in claims_)} sentence(s) the judge gave no valid "
                    "verdict: nothing was checked")
        if not checkable:
            return "no sentence could be checked: there is no source to check it against"
        counts = self.counts()
        parts = [f"{counts[SUPPORTED]} of {len(claims_)} claim{'s' if len(claims_) != 1 else ''} supported"]
        for status, words in ((PARTLY, "partly supported"), (UNSUPPORTED, "unsupported"),
                              (NOT_CHECKED, "not checked (the check cannot tell)"),
                              (NO_SOURCE, "not checked (no citation)")):
            if counts[status]:
                parts.append(f"{counts[status]} {words}")
        differs = [(d, s.evidence) for s in checkable for d in s.differs]
        if differs:
            page = (differs[0][1] or {}).get("page") or f"source [{(differs[0][1] or {}).get('source')}]"
            parts.append(f"{len(differs)} fact{'s' if len(differs) > 1 else ''} differ{'' if len(differs) > 1 else 's'}"
                         f" from {page}")
        lacking = [[e["name"] or "another document" for e in s.documents if e["status"] not in (SUPPORTED, PARTLY)]
                   for s in checkable]
        if any(lacking):
            parts.append(f"{sum(map(bool, lacking))} claim(s) without evidence from: "
                         + "; ".join(dict.fromkeys(n for names in lacking for n in names)))
        if self.citations["invalid"]:
            parts.append(f"{len(self.citations['invalid'])} invalid citation(s)")
        if self.citations["misattributed"]:
            parts.append(f"{len(self.citations['misattributed'])} citation(s) point to the wrong source")
        if self.failures:
            parts.append(f"{len(self.failures)} sentence(s) the judge gave no valid verdict")
        return " · ".join(parts + tail)

    def _apart(self) -> list[str]:
        """What is counted apart: the verdict's check, a missed answer, sentences that make no claim."""
        out = []
        vc = self.verdict_check or {}
        if vc.get("status") == CONTRADICTED:
            out.append(f"the verdict '{vc['verdict']}' is contradicted by {vc.get('page') or 'its evidence'}")
        elif vc.get("status") == AGREES:
            out.append(f"the verdict '{vc['verdict']}' agrees with {vc.get('page') or 'its evidence'}")
        if self.missed:
            out.append("a refusal, though the sources hold the answer (a missed answer)")
        kinds: dict[str, int] = {}
        for s in self.sentences:
            if s.status == NO_CLAIM:
                kinds[s.kind] = kinds.get(s.kind, 0) + 1
        out += [f"{n} {k}{'s' if n > 1 else ''} set aside (no claim)" for k, n in kinds.items()]
        return out

    def citation_precision(self) -> tuple[int, int]:
        """(citations that hold their sentence's evidence, all citations): each marker of each checked sentence,
        counted per sentence; a marker that points to no source holds nothing."""
        pairs = [s.holds.get(n, False) for s in self.sentences if s.status not in UNMARKED for n in s.cites]
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

    def marks(self, limit: int | None = None) -> list[Mark]:
        """Each sentence's mark (the first ``limit``)."""
        return [Mark(s.text, s.status, s.score, (s.evidence or {}).get("source"), (s.evidence or {}).get("page") or "",
                     (s.evidence or {}).get("text") or "", list(s.differs), s.kind, [dict(d) for d in s.documents])
                for s in self.sentences[:limit]]

    def as_dict(self) -> dict:
        return {"checker": self.checker, "verdict": self.verdict,
                "sentences": [{k: v for k, v in asdict(s).items()} for s in self.sentences],
                "citations": self.citations, "failures": self.failures, "summary": self.summary(),
                "marks": [m.as_json() for m in self.marks()], "verdict_check": self.verdict_check,
                "missed": self.missed}

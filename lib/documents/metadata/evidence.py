"""Weighing the evidence for one metadata field: each rule that finds a value gives a candidate with a weight;
candidates that agree add up, candidates that disagree take from each other, and a value below ``THRESHOLD`` is
not shown at all (a wrong value is worse than an empty one).

The weights are the rules' own (a "Lead Agency:" label 0.9, the PDF's Author 0.6, a name anywhere on the title
page 0.35); agreeing evidence combines as independent votes, 1 − Π(1 − w_i), and the best value loses half of the
best rival's combined weight. They are rule weights, not probabilities: what they are worth is measured by
``python -m lib metadata-eval`` (precision and recall per field) on the conformance covers in the tests."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from lib.documents.metadata.fields import FieldValue

THRESHOLD = 0.6  # a value weaker than this is left out: the page says "not found — fill or edit"
SURE = 0.8  # a value at least this strong is not replaced when a connected model fills the low-confidence fields


@dataclass
class Candidate:
    value: Any
    confidence: float
    source: str  # pdf_metadata | cover_text | body_text
    evidence: dict  # {"page": 3, "line": 2, "rule": …} or {"property": "Author", "rule": …}
    key: Any = field(default=None)  # what agreement is judged by (the value itself when None)

    def group(self) -> Any:
        if self.key is not None:
            return self.key
        return tuple(self.value) if isinstance(self.value, list) else self.value

    def as_field(self) -> FieldValue:
        return FieldValue(self.value, self.source, round(self.confidence, 3), dict(self.evidence))


def _combined(ws: list[float]) -> float:
    rest = 1.0
    for w in ws:
        rest *= 1.0 - max(0.0, min(1.0, w))
    return 1.0 - rest


def decide(cands: list[Candidate], threshold: float = THRESHOLD) -> FieldValue | None:
    """The field from its candidates: the best-supported value with the evidence of its strongest candidate, its
    confidence, and how many candidates agreed; None when nothing reaches ``threshold``."""
    groups: dict[Any, list[Candidate]] = defaultdict(list)
    for c in cands:
        if c.value not in (None, "", []):
            groups[c.group()].append(c)
    if not groups:
        return None
    scored = sorted(((_combined([c.confidence for c in g]), k) for k, g in groups.items()), key=lambda t: -t[0])
    best, key = scored[0]
    rival = scored[1][0] if len(scored) > 1 else 0.0
    confidence = best - 0.5 * rival
    if confidence < threshold:
        return None
    lead = max(groups[key], key=lambda c: c.confidence)
    evidence = dict(lead.evidence) | {"agreeing": len(groups[key])}
    if rival:
        evidence["disagreeing"] = sum(len(g) for k, g in groups.items() if k != key)
    return lead.as_field().but(confidence=round(confidence, 3), evidence=evidence)


def decide_list(cands: list[Candidate], threshold: float = THRESHOLD) -> FieldValue | None:
    """A list field (states) from candidates that each give a list: the items strong enough on their own or
    together, in order, with the evidence of the strongest candidate."""
    weights: dict[str, list[float]] = defaultdict(list)
    for c in cands:
        for item in c.value or []:
            weights[item].append(c.confidence)
    keep = sorted(item for item, ws in weights.items() if _combined(ws) >= threshold)
    if not keep:
        return None
    lead = max(cands, key=lambda c: (len(set(c.value) & set(keep)), c.confidence))
    return lead.as_field().but(value=keep, confidence=round(min(_combined(weights[i]) for i in keep), 3),
                               evidence=dict(lead.evidence) | {"agreeing": sum(1 for c in cands
                                                                              if set(c.value) & set(keep))})

"""The support checker measured as a classifier on the labelled set in data/support/ (its guide: GUIDE.md there):
fitted on the train split, its cuts chosen on dev, reported on test beside a word-overlap baseline whose cut is
chosen on the same dev split. ``bench/support.py`` runs it and writes the table.

Binary target: a claim sentence is "unsupported" when its label is ``partly`` or ``unsupported``; ``no_claim``
and ``absence`` sentences are left out and counted apart. A response is "unsupported" when any of its labelled
claim sentences is.
"""
from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import numpy as np

from lib.core.stats.inference import wilson_interval
from lib.core.text import tokenize
from lib.qa import claims, support, support_model
from lib.qa.support_signals import SIGNALS

DATA = Path(__file__).resolve().parents[2] / "data" / "support"
CLAIM_LABELS = ("supported", "partly", "unsupported")
TARGETS = {"supported": 0.90, "partly": 0.90, "unsupported": 0.90}  # support_model.RULES, as numbers
MIN_MARKED = 10  # a cut is chosen only where at least this many dev sentences get the mark


@dataclass
class Row:
    """One labelled sentence and what the checker made of it."""

    sentence_id: str
    response_id: str
    split: str
    source: str
    label: str
    text: str
    status: str = support.NOT_CHECKED
    kind: str = claims.CLAIM
    signals: dict[str, float] = field(default_factory=dict)
    chances: tuple[float, float] | None = None
    overlap: float = 0.0  # the baseline: the share of its content words its passage holds

    @property
    def unsupported(self) -> bool:
        return self.label in ("partly", "unsupported")


def load(data: Path = DATA) -> tuple[list[dict], dict[str, dict]]:
    rows = [json.loads(x) for x in (data / "sentences.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    passages = {p["passage_id"]: p for p in (json.loads(x) for x in
                (data / "passages.jsonl").read_text(encoding="utf-8").splitlines() if x.strip())}
    return rows, passages


def overlap(text: str, passage: str) -> float:
    """The word-overlap baseline: the share of ``text``'s content words that ``passage`` holds."""
    words, have = tokenize(support.bare(text)), set(tokenize(passage))
    return sum(w in have for w in words) / len(words) if words else 1.0


def run_checker(rows: Sequence[dict], passages: dict[str, dict]) -> tuple[list[Row], list[str]]:
    """Check every response of ``rows`` as the app would (the whole answer against its one passage) and match its
    labelled sentences to the check's; returns the rows and the ids of labelled sentences the check did not find
    (counted, never dropped silently)."""
    by_response: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        if r.get("label"):
            by_response[r["response_id"]].append(r)
    out, missing = [], []
    for rid, labelled in by_response.items():
        first = labelled[0]
        text = passages[first["passage_id"]]["text"]
        report = support.check(first["answer"], [support.Passage(1, text, "the passage")])
        found = {support.bare(s.text): s for s in report.sentences}
        for r in labelled:
            s = found.get(r["sentence"])
            row = Row(r["sentence_id"], rid, r["split"], r["source"], r["label"], r["sentence"],
                      overlap=overlap(r["sentence"], text))
            if s is None:
                missing.append(r["sentence_id"])
                row.status = "not found"
            else:
                row.status, row.kind, row.signals, row.chances = s.status, s.kind, dict(s.signals), s.chances
            out.append(row)
    return out, missing


# ----- fitting ---------------------------------------------------------------------------------------------------
def fit(rows: Sequence[Row]) -> dict:
    """Two logistic regressions (scikit-learn) on the train split's claims: everything supported, and at least part
    supported. Standardised signals, balanced classes, L2 with C = 1."""
    from sklearn.linear_model import LogisticRegression  # heavy: only fitting needs it, never the app

    train = [r for r in rows if r.split == "train" and r.label in CLAIM_LABELS and r.signals]
    x = np.array([[r.signals[k] for k in SIGNALS] for r in train], dtype=float)
    means, scales = x.mean(axis=0), x.std(axis=0)
    scales[scales == 0] = 1.0
    z = (x - means) / scales
    out = {"signals": list(SIGNALS), "means": means.round(6).tolist(), "scales": scales.round(6).tolist()}
    for name, y in (("full", [r.label == "supported" for r in train]),
                    ("any", [r.label in ("supported", "partly") for r in train])):
        lr = LogisticRegression(C=1.0, class_weight="balanced", max_iter=5000).fit(z, np.array(y, dtype=int))
        out[name] = [round(float(lr.intercept_[0]), 6), *(round(float(w), 6) for w in lr.coef_[0])]
    out["fitted"] = {"train_claims": len(train), "date": date.today().isoformat(),
                     "labels": dict(sorted(_count(r.label for r in train).items()))}
    return out


def _count(xs) -> dict:
    out: dict = defaultdict(int)
    for x in xs:
        out[x] += 1
    return dict(out)


def choose_cuts(rows: Sequence[Row], model: support_model.Model) -> dict[str, float]:
    """The cuts, by ``support_model.RULES`` on the dev split's claims."""
    dev = [r for r in rows if r.split == "dev" and r.label in CLAIM_LABELS and r.signals]
    ch = [model.chances(r.signals) for r in dev]
    full = sorted({round(c[0], 4) for c in ch})
    cut_sup = 1.01
    for t in reversed(full):  # lowest cut whose ✓ marks are right ≥ 90% (the facts rule applies as in the app)
        marked = [r for r, c in zip(dev, ch, strict=True) if c[0] >= t and not _differs(r)]
        if len(marked) >= MIN_MARKED and sum(r.label == "supported" for r in marked) / len(marked) >= TARGETS["supported"]:
            cut_sup = t
    rest = [(r, c) for r, c in zip(dev, ch, strict=True) if not (c[0] >= cut_sup and not _differs(r))]
    anys = sorted({round(c[1], 4) for _, c in rest})
    cut_part = 1.01
    for t in reversed(anys):
        marked = [r for r, c in rest if c[1] >= t]
        if len(marked) >= MIN_MARKED and (sum(r.label != "unsupported" for r in marked) / len(marked)
                                          >= TARGETS["partly"]):
            cut_part = t
    cut_uns = 0.0
    for t in anys:
        marked = [r for r, c in rest if c[1] < t]
        # ✗ says nothing of it is in the sources: right only where the label is unsupported (not partly)
        if len(marked) >= MIN_MARKED and (sum(r.label == "unsupported" for r in marked) / len(marked)
                                          >= TARGETS["unsupported"]):
            cut_uns = t
    return {"supported": cut_sup, "partly": cut_part, "unsupported": min(cut_uns, cut_part)}


def _differs(r: Row) -> bool:
    return bool(r.signals.get("numbers") or r.signals.get("names") or r.signals.get("dates")
                or r.signals.get("negation"))


# ----- measuring -------------------------------------------------------------------------------------------------
def auroc(scores: Sequence[float], positive: Sequence[bool]) -> float | None:
    """The chance that a positive scores above a negative (ties count half)."""
    pos = [s for s, p in zip(scores, positive, strict=True) if p]
    neg = [s for s, p in zip(scores, positive, strict=True) if not p]
    if not pos or not neg:
        return None
    s = np.array(scores, dtype=float)
    order = s.argsort(kind="mergesort")
    ranks = np.empty(len(s))
    sorted_s = s[order]
    i = 0
    while i < len(s):  # average ranks over ties
        j = i
        while j + 1 < len(s) and sorted_s[j + 1] == sorted_s[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    r_pos = sum(ranks[k] for k, p in enumerate(positive) if p)
    return float((r_pos - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def balanced_accuracy(pred: Sequence[bool], truth: Sequence[bool]) -> float | None:
    pos = [p for p, t in zip(pred, truth, strict=True) if t]
    neg = [not p for p, t in zip(pred, truth, strict=True) if not t]
    if not pos or not neg:
        return None
    return (sum(pos) / len(pos) + sum(neg) / len(neg)) / 2


def _boot(fn, *cols, n: int = 1000, seed: int = 36) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    size = len(cols[0])
    vals = []
    for _ in range(n):
        ix = rng.integers(0, size, size)
        v = fn(*([c[i] for i in ix] for c in cols))
        if v is not None:
            vals.append(v)
    return (float(np.percentile(vals, 2.5)), float(np.percentile(vals, 97.5))) if vals else (float("nan"),) * 2


def best_cut(scores: Sequence[float], truth: Sequence[bool]) -> float:
    """The cut on an "unsupported" score (higher = more likely unsupported) with the best balanced accuracy."""
    best, best_ba = 0.5, -1.0
    for t in sorted(set(scores)):
        ba = balanced_accuracy([s >= t for s in scores], truth)
        if ba is not None and ba > best_ba:
            best, best_ba = t, ba
    return best


def report(scores: Sequence[float], truth: Sequence[bool], cut: float) -> dict:
    """Balanced accuracy, precision and recall of "unsupported" at ``cut``, and AUROC: each with n and a 95%
    interval (Wilson for the proportions, a bootstrap for balanced accuracy and AUROC)."""
    pred = [s >= cut for s in scores]
    flagged = [t for p, t in zip(pred, truth, strict=True) if p]
    caught = [p for p, t in zip(pred, truth, strict=True) if t]
    ba = balanced_accuracy(pred, truth)
    au = auroc(scores, truth)
    return {
        "n": len(truth), "unsupported": int(sum(truth)), "cut": round(cut, 4),
        "balanced_accuracy": _fig(ba, len(truth), _boot(balanced_accuracy, pred, truth)),
        "precision": _fig(sum(flagged) / len(flagged) if flagged else None, len(flagged),
                          wilson_interval(sum(flagged), len(flagged)) if flagged else None),
        "recall": _fig(sum(caught) / len(caught) if caught else None, len(caught),
                       wilson_interval(sum(caught), len(caught)) if caught else None),
        "auroc": _fig(au, len(truth), _boot(auroc, list(scores), list(truth))),
    }


def _fig(value: float | None, n: int, ci) -> dict:
    return {"value": None if value is None else round(value, 3), "n": n,
            "lo": None if not ci else round(ci[0], 3), "hi": None if not ci else round(ci[1], 3)}


def checker_score(r: Row) -> float:
    """The checker's "unsupported" score: 1 − the chance it is all supported; a claim the check set aside (it
    took it for no claim) counts as not flagged."""
    return 1.0 - r.chances[0] if r.chances else 0.0


def unique(rows: Sequence[Row], passage_of: dict[str, str]) -> list[Row]:
    """Each sentence once per passage and label: a quote that comes back inside a programmatic change (a lead-in
    before it) is one sentence, not two, in sentence-level figures."""
    seen, out = set(), []
    for r in rows:
        key = (passage_of.get(r.response_id), r.text, r.label)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def responses(rows: Sequence[Row], answers: dict[str, str], passages_of: dict[str, str]) -> list[dict]:
    """Per response: its label (any labelled claim unsupported), the checker's score (its least supported
    claim) and the baseline's, scored the same way (its claim sentence with the smallest share of words in the
    passage; the response's lead-ins and refusals do not dilute it)."""
    grouped: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        grouped[r.response_id].append(r)
    out = []
    for rid, rs in grouped.items():
        claims_ = [r for r in rs if r.label in CLAIM_LABELS]
        if not claims_:
            continue
        out.append({"response_id": rid, "split": rs[0].split, "source": rs[0].source,
                    "unsupported": any(r.unsupported for r in claims_),
                    "checker": max(checker_score(r) for r in rs),
                    "baseline": max(1.0 - r.overlap for r in claims_)})
    return out


def marks_on(rows: Sequence[Row]) -> dict:
    """What each mark is worth on ``rows`` (claims only): ✓ precision, ◐ holds-part rate, ✗ recall of the
    sentences labelled unsupported, the share left "not checked", and the sentences with a changed number that are
    not ✓."""
    cl = [r for r in rows if r.label in CLAIM_LABELS]
    sup = [r for r in cl if r.status == support.SUPPORTED]
    part = [r for r in cl if r.status == support.PARTLY]
    uns = [r for r in cl if r.label == "unsupported"]
    nc = [r for r in cl if r.status == support.NOT_CHECKED]
    num = [r for r in rows if r.source == "changed:number"]

    def fig(k: int, n: int) -> dict:
        return _fig(k / n if n else None, n, wilson_interval(k, n) if n else None)

    return {
        support.SUPPORTED: fig(sum(r.label == "supported" for r in sup), len(sup)),
        support.PARTLY: fig(sum(r.label != "unsupported" for r in part), len(part)),
        support.UNSUPPORTED: fig(sum(r.status == support.UNSUPPORTED for r in uns), len(uns)),
        support.NOT_CHECKED: fig(len(nc), len(cl)),
        "changed number not ✓": fig(sum(r.status != support.SUPPORTED for r in num), len(num)),
    }


def claim_detection(rows: Sequence[Row]) -> dict:
    """The rules that set aside sentences making no claim: precision and recall on ``no_claim`` labels."""
    set_aside = [r for r in rows if r.kind in claims.NO_CLAIM_KINDS]
    no_claim = [r for r in rows if r.label == "no_claim"]
    k1 = sum(r.label == "no_claim" for r in set_aside)
    k2 = sum(r.kind in claims.NO_CLAIM_KINDS for r in no_claim)
    return {"precision": _fig(k1 / len(set_aside) if set_aside else None, len(set_aside),
                              wilson_interval(k1, len(set_aside)) if set_aside else None),
            "recall": _fig(k2 / len(no_claim) if no_claim else None, len(no_claim),
                           wilson_interval(k2, len(no_claim)) if no_claim else None)}

"""Inter-annotator agreement with the maintained implementations: scikit-learn's Cohen's kappa,
statsmodels' Fleiss' kappa, and the krippendorff package's alpha (which handles missing labels)."""
from __future__ import annotations

import csv
import io
import itertools
import math
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import krippendorff
import numpy as np
from sklearn.metrics import cohen_kappa_score, confusion_matrix
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from .errors import UserError
from .textfile import decode_text

POSITIVE = "yes"


@dataclass(frozen=True)
class Label:
    item_id: str
    annotator: str
    label: str
    value: str


def _clean(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 4)


def kappa_band(k: float | None) -> str:
    """Landis & Koch (1977) bands for kappa."""
    if k is None:
        return "n/a"
    if k < 0:
        return "poor (below chance)"
    for hi, name in ((0.2, "slight"), (0.4, "fair"), (0.6, "moderate"), (0.8, "substantial")):
        if k <= hi:
            return name
    return "almost perfect"


def alpha_band(a: float | None) -> str:
    """Krippendorff's (2004) guidance: α ≥ 0.8 reliable, ≥ 0.667 tentative conclusions only."""
    if a is None:
        return "n/a"
    if a >= 0.8:
        return "reliable"
    if a >= 0.667:
        return "tentative"
    return "unreliable"


def table(labels: Iterable[Label], label: str) -> tuple[list[str], list[str], dict[tuple[str, str], str]]:
    """Items, annotators and {(item, annotator): value} for one label."""
    cells = {(lb.item_id, lb.annotator): lb.value for lb in labels if lb.label == label}
    items = sorted({i for i, _ in cells})
    raters = sorted({a for _, a in cells})
    return items, raters, cells


def percent_agreement(items: list[str], raters: list[str], cells: dict) -> float | None:
    """Mean over items (with 2+ labels) of the share of agreeing annotator pairs."""
    shares = []
    for it in items:
        vals = [cells[(it, r)] for r in raters if (it, r) in cells]
        pairs = list(itertools.combinations(vals, 2))
        if pairs:
            shares.append(sum(a == b for a, b in pairs) / len(pairs))
    return sum(shares) / len(shares) if shares else None


def _confusion(ya: list[str], yb: list[str], cats: list[str]) -> list[list[int]]:
    with warnings.catch_warnings():  # one shared category is a valid 1×1 matrix here
        warnings.simplefilter("ignore", UserWarning)
        return confusion_matrix(ya, yb, labels=cats).tolist()


def cohen_pairs(items: list[str], raters: list[str], cells: dict) -> dict[str, dict[str, Any]]:
    out = {}
    for a, b in itertools.combinations(raters, 2):
        common = [it for it in items if (it, a) in cells and (it, b) in cells]
        if len(common) < 2:
            continue
        ya = [cells[(it, a)] for it in common]
        yb = [cells[(it, b)] for it in common]
        cats = sorted(set(ya) | set(yb))
        k = cohen_kappa_score(ya, yb, labels=cats) if len(cats) > 1 else float("nan")
        out[f"{a} × {b}"] = {
            "kappa": _clean(k), "n": len(common), "categories": cats,
            "confusion": _confusion(ya, yb, cats),
        }
    return out


def fleiss(items: list[str], raters: list[str], cells: dict) -> float | None:
    """Fleiss' kappa over the items every annotator labelled (it needs equal ratings per item)."""
    if len(raters) < 3:
        return None
    complete = [it for it in items if all((it, r) in cells for r in raters)]
    if len(complete) < 2:
        return None
    cats = sorted({cells[(it, r)] for it in complete for r in raters})
    codes = {c: i for i, c in enumerate(cats)}
    data = np.array([[codes[cells[(it, r)]] for r in raters] for it in complete])
    counts, _ = aggregate_raters(data, n_cat=len(cats))
    return _clean(fleiss_kappa(counts, method="fleiss"))


def kripp_alpha(items: list[str], raters: list[str], cells: dict) -> float | None:
    cats = sorted(set(cells.values()))
    if len(items) < 2 or len(raters) < 2:
        return None
    if len(cats) < 2:
        return 1.0 if any(sum((it, r) in cells for r in raters) >= 2 for it in items) else None
    codes = {c: i for i, c in enumerate(cats)}
    data = np.array([[codes[cells[(it, r)]] if (it, r) in cells else np.nan for it in items] for r in raters],
                    dtype=float)
    try:
        return _clean(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
    except (ValueError, ZeroDivisionError):
        return None


def rule_shares(items: list[str], raters: list[str], cells: dict) -> tuple[float | None, float | None]:
    """The paper's aggregates: share of items some annotator marked yes ('either'), and all marked yes."""
    labelled = [it for it in items if any((it, r) in cells for r in raters)]
    if not labelled:
        return None, None
    either = sum(any(cells.get((it, r)) == POSITIVE for r in raters) for it in labelled) / len(labelled)
    all_ = sum(all(cells[(it, r)] == POSITIVE for r in raters if (it, r) in cells) for it in labelled) / len(labelled)
    return round(either, 4), round(all_, 4)


def agreement_report(labels: Iterable[Label], label_names: Iterable[str] | None = None) -> dict[str, dict[str, Any]]:
    labels = list(labels)
    names = list(label_names) if label_names else sorted({lb.label for lb in labels})
    report = {}
    for name in names:
        items, raters, cells = table(labels, name)
        pairs = cohen_pairs(items, raters, cells)
        kappas = [p["kappa"] for p in pairs.values() if p["kappa"] is not None]
        either, all_ = rule_shares(items, raters, cells)
        pa = percent_agreement(items, raters, cells)
        alpha = kripp_alpha(items, raters, cells)
        report[name] = {
            "n_items": len(items),
            "n_annotators": len(raters),
            "percent_agreement": _clean(pa) if pa is not None else None,
            "cohen_kappa": round(sum(kappas) / len(kappas), 4) if kappas else None,
            "cohen_pairs": pairs,
            "fleiss_kappa": fleiss(items, raters, cells),
            "krippendorff_alpha": alpha,
            "alpha_band": alpha_band(alpha),
            "either_rule": either,
            "all_rule": all_,
        }
    return report


def cli_report(labels: Iterable[Label]) -> dict[str, dict[str, Any]]:
    keys = ("n_items", "n_annotators", "percent_agreement", "cohen_kappa", "fleiss_kappa", "krippendorff_alpha", "either_rule", "all_rule")
    return {name: {k: r[k] for k in keys} for name, r in agreement_report(labels).items()}


# -- reading label CSVs ------------------------------------------------------------------------------------------

LABEL_COLUMNS = ("item_id", "annotator", "label", "value")
# Values that are a controlled vocabulary whatever the label: compared without regard to case.
CONTROLLED_VALUES = ("yes", "no", "unsure")
# Labels whose value is free text, kept exactly as written (never case-folded).
FREE_TEXT_LABELS = frozenset({"comment"})
_REPORT_SHOWN = 5  # problems named in the one-line message; the full list is in ``problems``


@dataclass(frozen=True)
class RowProblem:
    """One problem in an imported file: ``row`` is the line the record starts on (the header is line 1)."""
    row: int
    column: str
    reason: str

    def __str__(self) -> str:
        return f"line {self.row}, column '{self.column}': {self.reason}"


class LabelsCSVError(UserError):
    """A labels file with bad rows. ``problems`` lists every one (row, column, reason); nothing was used."""

    def __init__(self, problems: list[RowProblem], outcome: str = "nothing was imported") -> None:
        self.problems = list(problems)
        n = len(self.problems)
        shown = "; ".join(str(p) for p in self.problems[:_REPORT_SHOWN])
        more = f"; and {n - _REPORT_SHOWN} more" if n > _REPORT_SHOWN else ""
        super().__init__(f"The labels CSV has {n} bad row{'s' if n != 1 else ''}, so {outcome}: {shown}{more}. "
                         "Fix the file and use the whole file again.")


# The one decoder for users' text files lives in textfile.py; this name stays for the Validate page and tests.
decode_csv_bytes = decode_text


def _normalise_value(label: str, value: str) -> str:
    """Controlled values (yes/no/unsure) are compared without regard to case; free text is kept as written."""
    if label not in FREE_TEXT_LABELS and value.lower() in CONTROLLED_VALUES:
        return value.lower()
    return value


def parse_labels_csv(text: str) -> tuple[list[tuple[int, Label]], list[RowProblem]]:
    """Long-format labels (item_id, annotator, label, value) with the line each starts on, and every row problem
    found (empty cells, extra cells, an item labelled twice). Cells are read back from our own safe export
    (``csv_safe.unneutralise``) and stripped; free text is otherwise kept exactly as written. A file that is not a
    labels CSV at all (no such columns, no rows, broken quoting) raises a UserError."""
    from .csv_safe import unneutralise

    reader = csv.reader(io.StringIO(text, newline=""))
    records: list[tuple[int, list[str]]] = []
    try:
        header: list[str] | None = None
        while True:
            start = reader.line_num + 1
            try:
                cells = next(reader)
            except StopIteration:
                break
            if not cells or (len(cells) == 1 and not cells[0].strip()):
                continue  # a blank line
            if header is None:
                header = [unneutralise(c.strip()) for c in cells]
                header[0] = header[0].lstrip("\ufeff")
            else:
                records.append((start, cells))
    except csv.Error as exc:
        raise UserError(f"The labels CSV is malformed near line {reader.line_num}: {exc}. Check its quoting "
                        "(text with commas or line breaks must be in double quotes).") from exc
    if not header or any(c not in header for c in LABEL_COLUMNS):
        raise UserError(f"The labels CSV needs the columns {', '.join(LABEL_COLUMNS)}; found "
                        f"{', '.join(header or []) or 'none'}.")
    if not records:
        raise UserError("The labels CSV has no rows.")
    where = {c: header.index(c) for c in LABEL_COLUMNS}
    out: list[tuple[int, Label]] = []
    problems: list[RowProblem] = []
    seen: dict[tuple[str, str, str], int] = {}
    for line, cells in records:
        if len(cells) > len(header):
            problems.append(RowProblem(line, header[-1], f"{len(cells)} cells but the header has {len(header)} "
                                       "columns: quote text that contains commas"))
            continue
        vals = [unneutralise((cells[where[c]] if where[c] < len(cells) else "").strip()) for c in LABEL_COLUMNS]
        empty = next((c for c, v in zip(LABEL_COLUMNS, vals, strict=True) if not v), None)
        if empty:
            problems.append(RowProblem(line, empty, "empty"))
            continue
        item_id, annotator, label, value = vals
        key = (item_id, annotator, label)
        if key in seen:
            problems.append(RowProblem(line, "item_id", f"item '{item_id}' is labelled twice for annotator "
                                       f"'{annotator}' and label '{label}' (also on line {seen[key]})"))
            continue
        seen[key] = line
        out.append((line, Label(item_id, annotator, label, _normalise_value(label, value))))
    return out, problems


def read_labels_csv(text: str) -> list[Label]:
    """Long-format labels: item_id, annotator, label, value. Raises a LabelsCSVError listing every bad row."""
    rows, problems = parse_labels_csv(text)
    if problems:
        raise LabelsCSVError(problems, "nothing was read")
    return [lb for _, lb in rows]

"""Labels files: long-format CSV (item_id, annotator, label, value) read with every bad row named, as the
Validate page's import and ``python -m lib agreement`` take it."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from lib.core.csv_safe import unneutralise
from lib.core.errors import UserError
from lib.core.stats.agreement import Label
from lib.core.textfile import decode_text

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

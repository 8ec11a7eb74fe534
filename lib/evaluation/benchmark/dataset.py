"""Benchmark items from CSV or JSON, validated row by row: bad rows are reported, never fatal."""
from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

from lib.core import config
from lib.core.errors import UserError
from lib.core.json_types import JSONObject
from lib.core.textfile import decode_text

QUESTION_TYPES = (
    "closed", "comparison", "convergent", "divergent", "evaluation", "funnel", "inference",
    "problem-solving", "process", "recall",
)
REQUIRED = ("question_type", "question", "groundtruth_answer", "context")
DOC_COLUMNS = ("EIS_filename", "doc_id")
OPTIONAL = ("ID", "proof", "page_number", "position")
POSITIONS = ("beginning", "middle", "end")


@dataclass
class Item:
    id: str
    question_type: str
    question: str
    answer: str
    context: str
    doc: str  # EIS_filename or doc id, as given
    proof: str = ""
    page_number: int | None = None
    position: str | None = None

    def as_dict(self) -> JSONObject:
        return asdict(self)


@dataclass
class Problem:
    row: int  # 1-based data row (the header is row 0)
    column: str
    reason: str

    def __str__(self) -> str:
        return f"row {self.row}, column '{self.column}': {self.reason}"


def _normalise_type(value: str) -> str:
    v = value.strip().lower().replace("_", "-").replace(" ", "-")
    return {"problem-solving": "problem-solving", "problemsolving": "problem-solving"}.get(v, v)


def parse_rows(rows: list[JSONObject]) -> tuple[list[Item], list[Problem]]:
    items: list[Item] = []
    problems: list[Problem] = []
    seen: set[str] = set()
    if not rows:
        return items, [Problem(0, "-", "the file has no data rows")]
    cols = set().union(*(r.keys() for r in rows))
    missing = [c for c in REQUIRED if c not in cols]
    if missing:
        raise UserError(f"The benchmark file lacks required column(s): {', '.join(missing)}. "
                        f"Required: {', '.join(REQUIRED)} and one of {', '.join(DOC_COLUMNS)}.")
    if not any(c in cols for c in DOC_COLUMNS):
        raise UserError("The benchmark file needs a document column: EIS_filename or doc_id.")
    for n, raw in enumerate(rows, start=1):
        r = {k: ("" if v is None else str(v)).strip() for k, v in raw.items() if k}
        bad = [c for c in REQUIRED if not r.get(c)]
        if bad:
            problems.append(Problem(n, bad[0], "empty"))
            continue
        qtype = _normalise_type(r["question_type"])
        if qtype not in QUESTION_TYPES:
            problems.append(Problem(n, "question_type", f"'{r['question_type']}' is not one of the ten types"))
            continue
        answer = r["groundtruth_answer"]
        if qtype == "closed":
            if answer.lower().rstrip(".") not in ("yes", "no"):
                problems.append(Problem(n, "groundtruth_answer", f"closed answer must be yes or no, got '{answer[:40]}'"))
                continue
            answer = answer.lower().rstrip(".")
        page = None
        if r.get("page_number"):
            try:
                value = float(r["page_number"])
                if not math.isfinite(value) or value < 1 or value != int(value):
                    raise ValueError(value)
                page = int(value)
            except ValueError:
                problems.append(Problem(n, "page_number", f"'{r['page_number']}' is not a page number (a whole number from 1)"))
                continue
        position = r.get("position", "").lower() or None
        if position and position not in POSITIONS:
            problems.append(Problem(n, "position", f"'{position}' is not beginning, middle or end"))
            continue
        item_id = r.get("ID") or f"row{n}"
        if item_id in seen:
            problems.append(Problem(n, "ID", f"duplicate ID '{item_id}'"))
            continue
        seen.add(item_id)
        items.append(Item(
            id=item_id, question_type=qtype, question=r["question"], answer=answer, context=r["context"],
            doc=r.get("EIS_filename") or r.get("doc_id", ""), proof=r.get("proof", ""), page_number=page,
            position=position,
        ))
    return items, problems


def load_items(data: bytes | str | Path, fmt: str | None = None) -> tuple[list[Item], list[Problem]]:
    """Items and per-row problems from CSV or JSON (a list of objects, or {"items": [...]})."""
    if isinstance(data, Path) or (isinstance(data, str) and len(data) < 4096 and Path(data).exists()):
        path = Path(data)
        fmt = fmt or path.suffix.lstrip(".").lower()
        data = path.read_bytes()
    if isinstance(data, str):
        data = data.encode("utf-8")
    text = decode_text(data, "The benchmark file")
    fmt = (fmt or ("json" if text.lstrip().startswith(("[", "{")) else "csv")).lower()
    if fmt == "json":
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UserError(f"The JSON file is malformed at line {exc.lineno}, column {exc.colno}: {exc.msg}.") from exc
        rows = obj.get("items", []) if isinstance(obj, dict) else obj
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise UserError("The JSON file must hold a list of objects (or {\"items\": [...]}).")
        return parse_rows(rows)
    if fmt != "csv":
        raise UserError(f"Unsupported benchmark format '{fmt}': use .csv or .json.")
    try:
        rows = list(csv.DictReader(io.StringIO(text)))
    except csv.Error as exc:
        raise UserError(f"The CSV file is malformed: {exc}.") from exc
    return parse_rows(rows)


def load_sample_items(full: bool = False) -> list[Item]:
    """The bundled NEPAQuAD items for the sample EIS (20-item set, or all 155 with ``full``), read as any item set
    is (they are all valid: a test keeps them so)."""
    return load_items(config.SAMPLE_QUESTIONS if full else config.SAMPLE20)[0]

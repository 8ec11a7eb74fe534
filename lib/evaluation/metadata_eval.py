"""How well the metadata rules read a set of PDFs: per field, the precision (a value shown is right) and the recall
(a value the documents state is shown), each with n and a 95% Wilson interval, against a CSV of what a careful
reader wrote down. An agency runs it on its own documents (``python -m lib metadata-eval DIR_OR_CSV``).

The CSV has a ``file`` column (a PDF's path, relative to the CSV's folder) and one column per field checked:
``title``, ``project_title``, ``lead_agency``, ``cooperating_agencies`` and ``states`` (lists separated by ``;``),
``document_type``, ``process_type``, ``year`` (or ``publish_date``, compared by year) and ``eis_number``. An empty
cell means the document does not state the field, so any value shown for it is wrong; a column left out is not
checked. A PDF that cannot be read is refused with its reason and counted, never dropped silently."""
from __future__ import annotations

import csv
import re
from pathlib import Path

from lib.core import config
from lib.core.errors import UserError
from lib.core.stats.inference import wilson_interval
from lib.documents import metadata
from lib.documents.pdf import read_pdf_file

CHECKED = ("title", "project_title", "lead_agency", "cooperating_agencies", "prepared_by", "document_type",
           "volume_title", "process_type", "year", "states", "eis_number")
_LISTS = {"cooperating_agencies", "states"}
_ALIASES = {"publish_date": "year"}


LEGEND = {
    "shown": "documents where the rules gave a value", "right": "of those, values equal to the CSV's",
    "stated": "documents whose CSV cell is not empty", "precision": "right / shown", "recall": "right / stated",
    "ci95": "95% Wilson interval", "differences": "every value shown wrongly, shown where the CSV is empty, or missed",
}


def _text_key(s: object) -> str:
    s = str(s or "").replace("&", " and ").casefold()
    return " ".join(re.sub(r"[^\w\s]", " ", s).split())


def _agency_key(s: str) -> str:
    return _text_key(metadata.canonical_agency(s) or s)


def _entry_key(s: str) -> str:
    """One cooperating agency's entry as compared: the agencies it names, a department named with its own
    sub-agency counting as the sub-agency ("U.S. Department of Agriculture — Forest Service" = "Forest Service").
    An entry that glues two agencies together ("Bureau of Land Management, U.S. Fish and Wildlife Service"), or an
    agency to a body the vocabulary does not know, equals neither of them."""
    agencies = metadata.entry_agencies(s)
    return " + ".join(_text_key(a) for a in agencies) if agencies else _text_key(s)


def comparable(field: str, value: object) -> object:
    """A value in the form two readings are compared in (None for no value)."""
    if value in (None, "", []):
        return None
    if field == "year":
        m = re.match(r"\s*(\d{4})", str(value))
        return m.group(1) if m else _text_key(value)
    if field in _LISTS:
        items = value if isinstance(value, list) else [v for v in re.split(r"[;\n]", str(value)) if v.strip()]
        if field == "states":
            return frozenset(str(i).strip().upper() if str(i).strip().upper() in metadata.STATES
                             else (metadata.normalize("states", i) or [""])[0] for i in items)
        return frozenset(_entry_key(str(i)) for i in items)
    if field == "lead_agency":
        return _agency_key(str(value))
    if field in ("document_type", "process_type"):
        try:
            return metadata.normalize(field, value)
        except UserError:
            return _text_key(value)
    return _text_key(value)


def _read_expected(target: Path, csv_path: Path | None) -> tuple[Path, list[dict], list[str]]:
    if csv_path is None:
        if target.is_dir():
            found = sorted(target.glob("*.csv"))
            if len(found) != 1:
                raise UserError(f"{target} holds {len(found)} CSV files; give the one with the expected values "
                                "(python -m lib metadata-eval FOLDER --csv expected.csv).")
            csv_path = found[0]
        elif target.suffix.lower() == ".csv":
            csv_path = target
        else:
            raise UserError(f"{target} is neither a folder of PDFs nor a CSV of expected values.")
    if not csv_path.is_file():
        raise UserError(f"No such CSV: {csv_path}")
    with csv_path.open(encoding="utf-8-sig", newline="") as f:
        reader = csv.DictReader(f)
        header = [h.strip() for h in (reader.fieldnames or [])]
        rows = [{(k or "").strip(): (v or "").strip() for k, v in r.items()} for r in reader]
    if "file" not in header:
        raise UserError(f"{csv_path.name} has no 'file' column: give each PDF's file name in a column named file.")
    fields = []
    for h in header:
        if h == "file":
            continue
        name = _ALIASES.get(h, h)
        if name not in CHECKED:
            raise UserError(f"{csv_path.name} has a column '{h}' that is not a metadata field. Known: file, "
                            f"{', '.join(CHECKED)} (or publish_date).")
        fields.append(name)
    if not fields:
        raise UserError(f"{csv_path.name} has no field columns to check.")
    if not rows:
        raise UserError(f"{csv_path.name} lists no documents.")
    folder = target if target.is_dir() else csv_path.parent
    return folder, [{_ALIASES.get(k, k): v for k, v in r.items()} for r in rows], fields


def _share(k: int, n: int) -> dict:
    if n == 0:
        return {"value": None, "n": 0, "ci95": None}
    lo, hi = wilson_interval(k, n)
    return {"value": round(k / n, 3), "n": n, "ci95": [round(lo, 3), round(hi, 3)]}


def evaluate(target: str | Path, csv_path: str | Path | None = None) -> dict:
    """Read every PDF the CSV lists, extract its metadata with the rules, and compare field by field."""
    target = Path(target)
    if not target.exists():
        raise UserError(f"No such file or folder: {target}")
    folder, rows, fields = _read_expected(target, Path(csv_path) if csv_path else None)
    counts = {f: {"shown": 0, "right": 0, "stated": 0} for f in fields}
    wrong: list[dict] = []
    refused: list[dict] = []
    read = 0
    for row in rows:
        name = row.get("file", "")
        path = folder / name
        if not path.exists() and path.with_name(path.name + ".pdf").exists():
            path = path.with_name(path.name + ".pdf")  # "report" for report.pdf
        try:
            ex = read_pdf_file(path, config.max_upload_bytes(), name=Path(name).stem)
        except UserError as exc:
            refused.append({"file": name, "reason": str(exc)})
            continue
        read += 1
        got: dict[str, object] = {k: v.value for k, v in metadata.extract(ex).items()}
        got["year"] = got.get("publish_date")
        for f in fields:
            want, shown = comparable(f, row.get(f)), comparable(f, got.get(f))
            c = counts[f]
            c["stated"] += want is not None
            c["shown"] += shown is not None
            if shown is not None and shown == want:
                c["right"] += 1
            elif shown is not None or want is not None:
                kind = ("missed" if shown is None else "shown where the document does not say" if want is None
                        else "wrong value")
                wrong.append({"file": name, "field": f, "shown": got.get(f), "expected": row.get(f) or None,
                              "kind": kind})
    table = [{"field": f, "precision": _share(c["right"], c["shown"]), "recall": _share(c["right"], c["stated"]),
              "shown": c["shown"], "right": c["right"], "stated": c["stated"]} for f, c in counts.items()]
    return {"documents": len(rows), "read": read, "refused": refused, "threshold": metadata.THRESHOLD,
            "legend": LEGEND, "fields": table, "differences": wrong}


def markdown_table(result: dict) -> str:
    """The per-field table as Markdown: precision and recall with n and their 95% intervals."""
    def cell(s: dict) -> str:
        if s["value"] is None:
            return "— (n = 0)"
        return f"{s['value']:.2f} [{s['ci95'][0]:.2f}, {s['ci95'][1]:.2f}] (n = {s['n']})"

    lines = ["| field | precision [95% CI] (n shown) | recall [95% CI] (n stated) |", "|---|---|---|"]
    lines += [f"| {r['field']} | {cell(r['precision'])} | {cell(r['recall'])} |" for r in result["fields"]]
    return "\n".join(lines)

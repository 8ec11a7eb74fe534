"""A bulk ingest's manifest: a CSV with one row per PDF, a ``file`` column and metadata columns in the CEQ standard's
names (``title``, ``lead_agency``, ``publish_date``, …, and ``tags``), and ``eis``: rows that give the same name there
are the volumes of one EIS, numbered in row order. Its values override what extraction reads
(they are stored as a person's values, so no rule or model replaces them). Every value is checked before anything is
queued: a row with a bad value refuses its file with the reason, and a column that is no field refuses the manifest.

A row's ``file`` is a path (relative to the CSV's folder, or absolute; for a folder uploaded on the Documents page,
the path within that folder, with or without the folder's own name) or a bare file name; a name matches a queued
file by its name when no path does, and only when one queued file has that name.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from lib.core.errors import UserError
from lib.documents.metadata.fields import FIELDS, TAGS, normalize
from lib.documents.metadata.records import normalize_tags

FILE_COLUMN = "file"
EIS_COLUMN = "eis"  # rows with the same value here are the volumes of one EIS, numbered in row order
COLUMNS = (FILE_COLUMN, *FIELDS, TAGS, EIS_COLUMN)
MAX_ROWS = 200_000


@dataclass
class Row:
    line: int  # the CSV line, for the messages
    file: str
    values: dict[str, Any] | None  # checked and in stored form; None when a value is wrong
    problem: str | None = None
    eis: str | None = None  # the ``eis`` column: which EIS it is a volume of (a name the manifest gives)
    volume: int | None = None  # its number among that EIS's rows, in row order


@dataclass
class Manifest:
    name: str
    folder: Path | None
    rows: list[Row] = field(default_factory=list)
    used: set[int] = field(default_factory=set)  # the lines a queued file matched

    _by_path: dict[str, Row] | None = None
    _by_name: dict[str, Row] | None = None

    def _index(self) -> None:
        """Rows by resolved path and, for bare names, by name: made once (a manifest may name 100,000 files)."""
        self._by_path, self._by_name = {}, {}
        for r in self.rows:
            given = Path(r.file) if r.file else None
            if given is None:
                continue
            if self.folder is None and len(given.parts) > 1:  # an upload: its path within the uploaded folder
                self._by_path.setdefault("/".join(PurePosixPath(r.file.replace("\\", "/")).parts), r)
            elif len(given.parts) > 1 or given.is_absolute():
                where = given if given.is_absolute() or self.folder is None else self.folder / given
                try:
                    self._by_path.setdefault(str(where.resolve()), r)
                except OSError:
                    continue
            else:
                self._by_name.setdefault(given.name, r)

    def for_file(self, path: str, names: dict[str, int]) -> Row | None:
        """The row for a queued file (by path, else by a name only one queued file has), or None. ``names``: how
        many queued files have each file name."""
        if self._by_path is None:
            self._index()
        p = Path(path)
        if self.folder is None:  # an upload ("eis/vol2/b.pdf"): a row naming its path, or its end ("vol2/b.pdf")
            parts = PurePosixPath(path.replace("\\", "/")).parts
            hit = next((r for k in range(len(parts), 1, -1)
                        if (r := self._by_path.get("/".join(parts[-k:]))) is not None), None)  # type: ignore[union-attr]
        else:
            try:
                hit = self._by_path.get(str(p.resolve()))  # type: ignore[union-attr]
            except OSError:
                hit = None
        if hit is None and names.get(p.name) == 1:
            hit = self._by_name.get(p.name)  # type: ignore[union-attr]
        if hit is not None:
            self.used.add(hit.line)
        return hit

    def unmatched(self) -> list[str]:
        """The rows no queued file matched: said in the summary, never dropped silently."""
        return [r.problem if r.problem and not r.file else f"line {r.line}: {r.file}"
                + (f" ({r.problem.split(': ', 1)[-1]})" if r.problem and r.file else "")
                for r in self.rows if r.line not in self.used]


def _values(raw: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in (*FIELDS, TAGS):
        text = (raw.get(key) or "").strip()
        if not text:
            continue  # an empty cell gives no value: extraction's stands
        out[key] = normalize_tags(text) if key == TAGS else normalize(key, text)
    return out


def read(data: bytes, name: str, folder: Path | None = None) -> Manifest:
    """Read and check a manifest. A file that is no CSV, has no ``file`` column or a column that is no field is
    refused as a whole (UserError); a row with a bad value is kept with its problem (its file is refused)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UserError(f"The manifest {name} is not UTF-8 text; save it as CSV (UTF-8).") from None
    reader = csv.DictReader(io.StringIO(text))
    header = [(h or "").strip() for h in (reader.fieldnames or [])]
    if FILE_COLUMN not in header:
        raise UserError(f"The manifest {name} needs a '{FILE_COLUMN}' column naming each PDF; its columns are "
                        f"{', '.join(header) or 'none'}.")
    unknown = [h for h in header if h not in COLUMNS]
    if unknown:
        raise UserError(f"The manifest {name} has column(s) {', '.join(repr(u) for u in unknown)} that are no "
                        f"metadata field; use the CEQ names: {', '.join(COLUMNS)}.")
    reader.fieldnames = header
    out = Manifest(name=name, folder=folder)
    seen: dict[str, int] = {}
    for n, raw in enumerate(reader, start=2):
        if n - 1 > MAX_ROWS:
            raise UserError(f"The manifest {name} has more than {MAX_ROWS:,} rows; split it.")
        file = (raw.get(FILE_COLUMN) or "").strip()
        if not file:
            if any((v or "").strip() for v in raw.values() if isinstance(v, str)):
                out.rows.append(Row(n, "", None, f"manifest line {n} names no file"))
            continue
        if file in seen:
            out.rows.append(Row(n, file, None, f"manifest line {n} names {file} again (first on line {seen[file]})"))
            continue
        seen[file] = n
        try:
            out.rows.append(Row(n, file, _values(raw), eis=" ".join((raw.get(EIS_COLUMN) or "").split()) or None))
        except UserError as exc:
            out.rows.append(Row(n, file, None, f"manifest line {n}: {exc}"))
    counts: dict[str, int] = {}
    for row in out.rows:  # each EIS's volumes numbered in row order
        if row.eis is not None:
            counts[row.eis] = counts.get(row.eis, 0) + 1
            row.volume = counts[row.eis]
    return out


def read_path(path: str | Path) -> Manifest:
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise UserError(f"Cannot read the manifest {p}: {exc.strerror or exc}.") from None
    return read(data, p.name, p.parent)


__all__ = ["COLUMNS", "EIS_COLUMN", "FILE_COLUMN", "Manifest", "Row", "read", "read_path"]

"""CSV that is safe to open in a spreadsheet (the OWASP rule against formula injection).

A cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return would be run as a formula by
Excel, LibreOffice or Google Sheets; it is written with a leading apostrophe instead. Every CSV the app or the
command line writes goes through ``to_csv``. JSON exports keep the raw text. Reading our own export back
(``unneutralise``) removes exactly that one apostrophe, so a round trip is byte-for-byte.
"""
from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def neutralise(value: object) -> object:
    """The cell as written to CSV: text that a spreadsheet would run as a formula gets a leading apostrophe.
    Text that already starts with an apostrophe gets one more, so ``unneutralise`` can undo exactly this."""
    if isinstance(value, str) and value and (value.startswith(TRIGGERS) or _escaped(value)):
        return "'" + value
    return value


def _escaped(value: str) -> bool:
    return value.startswith("'") and value[1:2] != "" and (value[1:].startswith(TRIGGERS) or _escaped(value[1:]))


def unneutralise(value: str) -> str:
    """The text as it was before ``neutralise``."""
    if value.startswith("'") and (value[1:].startswith(TRIGGERS) or _escaped(value[1:])):
        return value[1:]
    return value


def to_csv(frame: Any) -> str:
    """A pandas DataFrame as safe CSV text (no index)."""
    import pandas as pd  # heavy: imported on first use, off start-up

    safe = frame.copy()
    for col in safe.columns:
        if safe[col].dtype == object or pd.api.types.is_string_dtype(safe[col]):
            safe[col] = safe[col].astype(object).map(neutralise)
    safe.columns = [neutralise(str(c)) for c in safe.columns]
    return str(safe.to_csv(index=False))


def rows_to_csv(rows: Iterable[Mapping[str, object]], fieldnames: Sequence[str]) -> str:
    """Dict rows as safe CSV text."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(fieldnames), extrasaction="ignore")
    w.writeheader()
    for r in rows:
        w.writerow({k: neutralise(v) for k, v in r.items()})
    return buf.getvalue()

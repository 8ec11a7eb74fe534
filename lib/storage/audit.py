"""The audit record: who did what, when, to which object. Append-only (the database refuses to change or delete a
row: schema step 12); admins read and export it. Keys never reach it: every text is redacted before it is written.

``guarded`` is how an action that changes data is taken: authorize (lib/core/access.py), act, record. A refusal is
recorded too, so an admin sees who tried what."""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import insert, select
from sqlalchemy.engine import Engine

from lib.core import access
from lib.core.access import Action, Actor
from lib.core.csv_safe import rows_to_csv
from lib.core.redaction import redact
from lib.storage import tables
from lib.storage.engine import get_engine

COLUMNS = ["at", "actor", "role", "action", "object", "outcome", "detail"]


@dataclass(frozen=True)
class Entry:
    """One line of the audit record; ``at`` in epoch seconds, ``outcome`` done or refused."""
    at: float
    actor: str
    role: str | None
    action: str
    object: str | None
    outcome: str
    detail: str | None


def record(action: Action, what: str = "", outcome: str = "done", detail: str = "", engine: Engine | None = None,
           actor: Actor | None = None) -> None:
    """Append one line for the person acting (or ``actor``)."""
    who = actor or access.current()
    with (engine or get_engine()).begin() as c:
        c.execute(insert(tables.audit_log).values(
            at=time.time(), actor=redact(who.id if who else "nobody (not signed in)"),
            role=who.role.word if who and who.role else None, action=action.value,
            object=redact(what)[:2000] or None, outcome=outcome, detail=redact(detail)[:4000] or None))


def _refused(action: Action, what: str, who: Actor | None) -> None:
    record(action, what, "refused", actor=who)


access.on_refusal(_refused)  # every refusal of lib/core/access.py's check, wherever it is asked, is recorded


@contextmanager
def guarded(action: Action, what: str = "", detail: str = "", engine: Engine | None = None) -> Iterator[Actor]:
    """Authorize ``action`` for the person acting, run the block, and record it once the block has finished (a
    refusal is recorded and raised; a block that fails is not recorded: nothing was done)."""
    who = access.authorize(action, what)
    yield who
    record(action, what, "done", detail, engine, actor=who)


def entries(limit: int = 500, engine: Engine | None = None) -> list[Entry]:
    """The latest lines, newest first (admins only)."""
    access.authorize(Action.READ_AUDIT)
    t = tables.audit_log
    with (engine or get_engine()).connect() as c:
        rows = c.execute(select(*(t.c[k] for k in COLUMNS)).order_by(t.c.id.desc()).limit(limit)).mappings().all()
    return [Entry(**r) for r in rows]


def export_csv(engine: Engine | None = None) -> str:
    """The whole record as CSV, oldest first, safe to open in a spreadsheet (admins only; the export is recorded)."""
    with guarded(Action.READ_AUDIT, "audit record", "exported as CSV", engine=engine):
        t = tables.audit_log
        with (engine or get_engine()).connect() as c:
            rows = c.execute(select(*(t.c[k] for k in COLUMNS)).order_by(t.c.id)).mappings().all()
    out = [dict(r) for r in rows]
    for r in out:
        r["at"] = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(float(r["at"]))) + " UTC"
    return rows_to_csv(out, COLUMNS)


def connected_run(model: object, what: str) -> None:
    """A run with a connected model (a judge, a translation): checked and recorded once, before its calls."""
    if not getattr(model, "local", True):
        with guarded(Action.CONNECTED_MODEL, f"{what} with {getattr(model, 'id', '?')}"):
            pass

"""What every command group shares: the command table and its decorator, the exit signal, progress on
stderr, foreground jobs, the shared services, and the document-scope flags (--doc, --docs, --all, --where)."""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from lib.app.services import Services, get_services
from lib.collection import volumes
from lib.core.errors import UserError
from lib.documents.metadata import (
    collection_filter,
    parse_where,
)
from lib.storage.jobs import run_foreground

Handler = Callable[[argparse.Namespace], object]  # a command: its arguments in, what is printed as JSON out
COMMANDS: dict[str, Handler] = {}


class ExitWith(Exception):  # noqa: N818 - a control-flow signal, not an error type
    """Print ``result`` as usual, then exit with ``code`` (e.g. `check` finding a problem)."""

    def __init__(self, code: int, result: object) -> None:
        super().__init__(code)
        self.code, self.result = code, result


def command(name: str) -> Callable[[Handler], Handler]:
    def deco(fn: Handler) -> Handler:
        COMMANDS[name] = fn
        return fn

    return deco


def stderr_progress(stage: str, frac: float, msg: str) -> None:
    print(f"[{stage}] {frac * 100:5.1f}% {msg.removeprefix(stage + ': ')}", file=sys.stderr, flush=True)


def run_job(kind: str, params: dict, title: str) -> dict:
    """Run a job in the foreground: the same code as the app's background jobs, recorded in the same table.
    Progress goes to stderr: every change of stage, the end, and otherwise at most twice a second."""
    return run_foreground(kind, params, title, printer())


def printer():  # noqa: ANN202 - a progress printer

    last = {"stage": "", "at": 0.0}

    def printer(stage: str, frac: float, msg: str) -> None:
        now = time.monotonic()
        if stage != last["stage"] or frac >= 1.0 or now - last["at"] >= 0.5:
            last.update(stage=stage, at=now)
            stderr_progress(stage, frac, msg)

    return printer


def services() -> Services:
    """The shared index, document store and retriever (opened on first use: listing commands never start Chroma)."""
    return get_services()


def scope_flags(s: argparse.ArgumentParser, required: bool) -> None:
    g = s.add_mutually_exclusive_group(required=required)
    g.add_argument("--doc", help="one document id")
    g.add_argument("--docs", help="comma-separated document ids")
    g.add_argument("--eis", metavar="ID", help="every volume of one EIS: its id (`volumes list`) or any volume's "
                                               "document id")
    g.add_argument("--all", action="store_true", help="every indexed document")
    g.add_argument("--where", help='metadata filter: lead_agency=…,states=AK,document_type="Final EIS",year=2010-2020')


def chosen_scope(a: argparse.Namespace, svc: Services) -> str | list[str] | None:
    """The documents a command works on: one id, a list, "*" for all, or the ids a metadata filter selects."""
    if getattr(a, "all", False):
        return "*"
    if getattr(a, "docs", None):
        ids = [d.strip() for d in a.docs.split(",") if d.strip()]
        if not ids:
            raise UserError("--docs lists no document id.")
        for d in ids:
            svc.docs.get(d)
        return ids
    if getattr(a, "eis", None):
        found = next((e for e in volumes.every(svc.docs.engine) if a.eis in (e.eis_id, *e.doc_ids)), None)
        if found is None:
            raise UserError(f"No EIS of volumes with id '{a.eis}' (neither an EIS's id nor one of its volumes'); "
                            "`python -m lib volumes list` lists them.")
        return found.doc_ids
    if getattr(a, "where", None):

        ids = collection_filter(svc.docs.list(), parse_where(a.where), svc.docs.engine)
        if not ids:
            raise UserError(f"No document matches --where {a.where}.")
        return ids
    if a.doc:
        svc.docs.get(a.doc)
        return a.doc
    return None


"""The command line's entry point: the parser of every command group, and main(), which runs a command and
prints its result as JSON on stdout (errors a user can fix: `error: …` on stderr, exit 2)."""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from lib.app.cli import answers, benchmark, documents, jobs, review
from lib.app.cli.common import COMMANDS, ExitWith
from lib.core import access
from lib.core.errors import UserError
from lib.core.redaction import redact
from lib.models import ProviderError

GROUPS = (documents, jobs, answers, benchmark, review)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m lib", description="NEPA QA Studio command line (prints JSON). It runs as the local "
                                "admin, with every role's rights; the audit record names it 'command line'.")
    sub = p.add_subparsers(dest="command", required=True)
    for group in GROUPS:
        group.add_parsers(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()

    def _fail(message: str) -> NoReturn:
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(2)

    parser.error = _fail  # type: ignore[method-assign]
    for action in parser._subparsers._group_actions if parser._subparsers else []:  # noqa: SLF001
        for sp in (action.choices if isinstance(action.choices, dict) else {}).values():
            sp.error = _fail
    args = parser.parse_args(argv)
    code = 0
    try:
        with access.acting_as(access.CLI_ADMIN):  # whoever can run this shell owns the store: the local admin
            result = COMMANDS[args.command](args)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ProviderError as exc:  # a model server failed: not the user's mistake (that is exit 2)
        print(redact(f"error: {exc}"), file=sys.stderr)
        return 1
    except ExitWith as ex:
        result, code = ex.result, ex.code
    except KeyboardInterrupt:
        print("error: interrupted; what was saved is kept (benchmark and exam runs resume where they stopped)",
              file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - the run itself could not finish: a short, key-free message, exit 1
        if os.environ.get("NEPAQA_DEBUG"):
            raise
        print(redact(f"error: the command could not finish ({type(exc).__name__}: {exc}). What was saved is kept; "
                     "benchmark and exam runs resume where they stopped. Set NEPAQA_DEBUG=1 for the traceback."),
              file=sys.stderr)
        return 1
    try:
        one_line = isinstance(result, list) or getattr(args, "queue", False)  # a bulk ingest's summary: one line
        json.dump(result, sys.stdout, ensure_ascii=False, indent=None if one_line else 2)
        sys.stdout.write("\n")
        sys.stdout.flush()
    except BrokenPipeError:  # `python -m lib docs | head`: the reader went away, which is not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return code

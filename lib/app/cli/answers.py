"""Answers: the models, one question asked, an answer's support marks, yes/no verdicts read from text."""
from __future__ import annotations

import argparse
import sys

from lib.app.cli.common import (
    ExitWith,
    chosen_scope,
    command,
    scope_flags,
    services,
)
from lib.core.errors import UserError
from lib.core.textfile import read_text
from lib.core.verdict import parse_verdict
from lib.models import registry
from lib.qa import support, support_judge
from lib.qa.ask import ask


def add_parsers(sub: argparse._SubParsersAction) -> None:
    sub.add_parser("models", help="list answering models and whether they are available")

    s = sub.add_parser("ask", help="answer a question with one model in one context mode")
    scope_flags(s, required=False)
    s.add_argument("--balanced", action="store_true", help="RAG: the best chunks of each document in turn")
    s.add_argument("--mode", required=True, choices=["none", "pdf", "rag", "gold"])
    s.add_argument("--gold")
    s.add_argument("-k", type=int, default=3)
    s.add_argument("--closed", action="store_true", default=None)
    s.add_argument("--model", required=True)
    s.add_argument("question", nargs="+")

    s = sub.add_parser("support", help="mark each sentence of an answer as supported or not by its passages")
    s.add_argument("--context-file", required=True,
                   help="the passages, one per paragraph (blank-line separated), numbered [1], [2]… in order")
    s.add_argument("--answer-file", required=True, help="the answer to check; its [n] markers cite the passages")
    s.add_argument("--checker", choices=["offline", "judge"], default="offline",
                   help="offline: the bundled embedder, word overlap and fact rules, no model; judge: a connected "
                        "model's verdict on each sentence (needs --model)")
    s.add_argument("--model", help="the judge model for --checker judge")

    s = sub.add_parser("verdict", help="read yes/no answers, one per line, as yes, no or unclear")
    s.add_argument("--file", required=True, help="text file with one answer per line")


@command("models")
def _models(a: argparse.Namespace) -> object:
    return [{"id": p.id, "label": p.label, "available": ok, "reason": why} for p, ok, why in registry.status_all(check=True)]


@command("ask")
def _ask(a: argparse.Namespace) -> object:
    scoped = a.doc or a.docs or a.eis or a.all or a.where
    svc = services() if a.mode in ("pdf", "rag") or scoped else None
    scope = chosen_scope(a, svc) if svc is not None else None  # unknown documents: a clear error before any model loads
    res = ask(" ".join(a.question), a.model, a.mode, svc, scope, a.k, a.gold, a.closed, a.balanced)
    if res.error:  # the one cell failed: say so, and exit 1 (the JSON still says what happened)
        print(f"error: {res.error}", file=sys.stderr)
        raise ExitWith(1, res.cli_dict())
    return res.cli_dict(svc.docs.pages if svc is not None else None)


@command("support")
def _support(a: argparse.Namespace) -> object:
    context = read_text(a.context_file, "context file")
    answer = read_text(a.answer_file, "answer file")
    passages = support.passages_from_text(context)
    if not passages:
        raise UserError(f"{a.context_file} holds no passage: put the passages one per paragraph, separated by "
                        "blank lines; they are numbered [1], [2]… in order.")
    if not answer.strip():
        raise UserError(f"{a.answer_file} is empty: give the answer to check.")
    if a.checker == "judge":
        if not a.model:
            raise UserError("--checker judge needs --model: a connected model, e.g. --model openai/gpt-4o-mini "
                            "(python -m lib models lists them).")
        return support_judge.judge_check(answer, passages, registry.get(a.model)).as_dict()
    return support.check(answer, passages).as_dict()


@command("verdict")
def _verdict(a: argparse.Namespace) -> object:
    text = read_text(a.file, "answers file")
    # One answer per line of the file: only \n (or \r\n) ends a line; form feeds and Unicode separators inside an
    # answer (common in PDF text) do not split it.
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [parse_verdict(line) for line in lines]


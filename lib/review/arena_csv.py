"""Arena votes as CSV: an arena's votes exported (formula-safe), imported all or nothing into an arena over the
same answers, and read for ``python -m lib arena-ratings``."""
from __future__ import annotations

import csv
import io
import math
from datetime import datetime

from sqlalchemy.engine import Engine

from lib.core import access
from lib.core.access import Action
from lib.core.csv_safe import rows_to_csv, unneutralise
from lib.core.errors import UserError
from lib.core.stats.bradley_terry import VOTES, Vote
from lib.review.arena import ArenaVote, arena_answers, get_arena, oriented, upsert_vote, vote_row, votes
from lib.storage.audit import guarded
from lib.storage.engine import get_engine

CSV_COLUMNS = ("arena_id", "item_id", "question", "left_model", "left_mode", "right_model", "right_mode",
               "left_answer", "right_answer", "vote", "reason", "annotator", "seconds", "created_at")
REQUIRED = ("left_model", "right_model", "vote")  # what read_votes_csv needs of a votes file
OPTIONAL = ("annotator", "item_id", "left_mode", "right_mode")


def votes_csv(arena_id: str, engine: Engine | None = None) -> str:
    """The arena's votes as CSV (cells that a spreadsheet would run as formulas are neutralised). The columns
    ``left_model``/``right_model``/``left_mode``/``right_mode``/``vote``/``annotator``/``item_id`` are what
    ``python -m lib arena-ratings`` reads."""
    engine = (engine or get_engine())
    arena = get_arena(arena_id, engine)
    answers = arena_answers(arena, engine)
    rows = [{"arena_id": arena_id, "item_id": v.item_key,
             "question": answers[v.left_answer].question if v.left_answer in answers else "",
             **{k: getattr(v, k) for k in ("left_model", "left_mode", "right_model", "right_mode", "left_answer",
                                           "right_answer", "vote", "annotator", "seconds", "created_at")},
             "reason": v.reason or ""} for v in votes(arena_id, engine)]
    return rows_to_csv(rows, CSV_COLUMNS)


def import_votes_csv(text: str, arena_id: str, engine: Engine | None = None) -> dict[str, int]:
    """Votes from CSV (an export of this arena, or of an arena over the same answers) into ``arena_id``: all or
    nothing. Each row must name two answers of this arena that form a pair, their models and modes as stored, a
    vote and an expert; every bad row is named in one UserError. Returns counts {new, replaced, unchanged}: a vote
    an expert already cast on that pair is replaced by the file's."""
    engine = (engine or get_engine())
    who = access.authorize(Action.VOTE, f"arena {arena_id}")
    arena = get_arena(arena_id, engine)
    answers = arena_answers(arena, engine)
    reader = csv.DictReader(io.StringIO(text))
    cols = {(c or "").strip() for c in (reader.fieldnames or [])}
    need = ("left_answer", "right_answer", "left_model", "left_mode", "right_model", "right_mode", "vote", "annotator")
    missing = [c for c in need if c not in cols]
    if missing:
        raise UserError(f"Nothing was imported: the file needs the columns {', '.join(need)} (as the arena's export "
                        f"writes them); missing: {', '.join(missing)}.")
    rows: list[tuple[ArenaVote, datetime | None]] = []  # a vote, and when it was cast (if the file says)
    problems: list[str] = []
    seen: dict[tuple[str, str], int] = {}
    for row_no, raw in enumerate(reader, start=2):
        r = {(k or "").strip(): unneutralise((v or "").strip()) for k, v in raw.items() if k}
        try:
            seconds = float(r["seconds"]) if r.get("seconds") else None
            if seconds is not None and not (math.isfinite(seconds) and seconds >= 0):
                raise ValueError
        except ValueError:
            problems.append(f"row {row_no}: seconds '{r.get('seconds')}' is not a number of seconds")
            continue
        try:
            row = vote_row(arena_id, answers, r["annotator"], r["left_answer"], r["right_answer"],
                            r["vote"].lower(), r.get("reason"), seconds)
        except UserError as exc:
            problems.append(f"row {row_no}: {str(exc).rstrip('.')}")
            continue
        stated = (r["left_model"], r["left_mode"], r["right_model"], r["right_mode"])
        if stated != (row.left_model, row.left_mode, row.right_model, row.right_mode):
            problems.append(f"row {row_no}: the models or modes do not match the answers {r['left_answer']} and "
                            f"{r['right_answer']} in this arena")
            continue
        when = None
        if r.get("created_at"):
            try:
                when = datetime.fromisoformat(r["created_at"])  # the vote keeps its time
            except ValueError:
                problems.append(f"row {row_no}: created_at '{r['created_at']}' is not a date and time")
                continue
        key = (row.pair_key, row.annotator)
        if key in seen:
            problems.append(f"row {row_no}: {row.annotator} votes on this pair again (row {seen[key]})")
            continue
        seen[key] = row_no
        rows.append((row, when))
    if problems:
        shown = "; ".join(problems[:10]) + (f"; and {len(problems) - 10} more" if len(problems) > 10 else "")
        raise UserError(f"Nothing was imported: {len(problems)} bad row(s): {shown}.")
    if not rows:
        raise UserError("Nothing was imported: the file has no votes.")
    others = sorted({row.annotator for row, _ in rows if row.annotator.strip().casefold() != who.id.casefold()})
    if who.signed_in and others and not access.allowed(Action.ADJUDICATE):
        raise access.AccessDeniedError(f"You can import only your own votes ({who.id}); this file also holds votes of "
                                  f"{len(others)} other name(s). Ask an adjudicator to import it.")
    had = {(v.pair_key, v.annotator): v for v in votes(arena_id, engine)}
    counts = {"new": 0, "replaced": 0, "unchanged": 0}
    for row, _ in rows:
        old = had.get((row.pair_key, row.annotator))
        same = old is not None and oriented(old) == oriented(row) and (old.reason or None) == row.reason
        counts["new" if old is None else "unchanged" if same else "replaced"] += 1
    with guarded(Action.VOTE, f"arena {arena_id}", f"imported {len(rows)} votes ({counts})", engine), \
            engine.begin() as c:  # one transaction: every row or none
        for row, when in rows:
            c.execute(upsert_vote(engine, row, when))
    return counts


def read_votes_csv(text: str) -> list[Vote]:
    """Votes from CSV text, all or nothing: every bad row is named (row 1 is the header) in one UserError."""
    reader = csv.DictReader(io.StringIO(text))
    cols = [c.strip() for c in (reader.fieldnames or [])]
    missing = [c for c in REQUIRED if c not in cols]
    if missing:
        raise UserError(f"The votes file needs the columns {', '.join(REQUIRED)} (optional: {', '.join(OPTIONAL)}); "
                        f"missing: {', '.join(missing)}.")

    votes, problems = [], []
    for row_no, raw in enumerate(reader, start=2):
        extra = raw.pop(None, None)  # DictReader keeps a row's extra cells under the key None
        if extra and any((c or "").strip() for c in extra):  # a trailing comma (an empty cell) is harmless
            problems.append(f"row {row_no}: more cells than the header has columns")
            continue
        row = {(k or "").strip(): unneutralise((v or "").strip()) for k, v in raw.items()}
        left, right, vote = row.get("left_model", ""), row.get("right_model", ""), row.get("vote", "").lower()
        modes = row.get("left_mode", ""), row.get("right_mode", "")
        if any(modes) and not all(modes):
            problems.append(f"row {row_no}: left_mode and right_mode must both be given, or both left empty")
            continue
        if left and right and all(modes):  # an arena's export: a system is a model in a mode
            left, right = f"{left} · {modes[0]}", f"{right} · {modes[1]}"
        if not left or not right:
            problems.append(f"row {row_no}: a model name is empty")
        elif left == right:
            problems.append(f"row {row_no}: a model cannot face itself ({left})")
        elif vote not in VOTES:
            problems.append(f"row {row_no}: vote '{row.get('vote', '')}' is not one of {', '.join(VOTES)}")
        else:
            votes.append(Vote(left, right, vote, row.get("annotator", ""), row.get("item_id", "")))
    if problems:
        shown = "; ".join(problems[:10]) + (f"; and {len(problems) - 10} more" if len(problems) > 10 else "")
        raise UserError(f"Nothing was read: {len(problems)} bad row(s): {shown}.")
    if not votes:
        raise UserError("The votes file has no votes.")
    if len({m for v in votes for m in (v.left, v.right)}) < 2:
        raise UserError("Ratings need votes between at least two models.")
    return votes

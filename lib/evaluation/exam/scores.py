"""EnviroExam scores (Huang et al., 2024): per course, per run, and the leaderboard beside the published models.

Scoring as the paper defines it: s_i = accuracy (%) on course i; M = mean(s_i); σ = population standard
deviation of s_i around M (the paper prints (s_i − 1): a typo for M); CV = σ / M; I = M × (1 − CV) when
0 ≤ CV ≤ 1, else the model is "void".
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace

from sqlalchemy import select
from sqlalchemy.engine import Engine

from lib.core.errors import UserError
from lib.core.json_types import JSON, JSONObject, json_int, json_str
from lib.evaluation.exam.dataset import ROTATIONS, courses, load_course, load_published
from lib.models import registry
from lib.qa import manifest
from lib.storage import tables
from lib.storage.engine import get_engine


@dataclass
class ExamIndex:
    M: float | None
    sigma: float | None
    cv: float | None
    I: float | None  # noqa: E741 - the paper's name
    void: bool
    n: int


def composite_index(scores: Sequence[float]) -> ExamIndex:
    """M, σ (population, around M), CV = σ/M, I = M(1 − CV) for 0 ≤ CV ≤ 1, else void."""
    n = len(scores)
    if n == 0:
        return ExamIndex(None, None, None, None, False, 0)
    m = sum(scores) / n
    sigma = math.sqrt(sum((s - m) ** 2 for s in scores) / n)
    if m == 0:
        return ExamIndex(0.0, sigma, None, None, True, n)
    cv = sigma / m
    void = not (0 <= cv <= 1)
    return ExamIndex(round(m, 4), round(sigma, 4), round(cv, 6), None if void else round(m * (1 - cv), 4), void, n)


@dataclass(frozen=True)
class ExamRun:
    """One run made here, scored over every question it asked (``summarize_run`` says how)."""

    run_id: str
    model: str  # the concrete model id
    shots: int
    cot: bool
    split: str
    circular: bool
    n_questions: int  # questions scored (a circular one once all four rotations are asked)
    n_courses: int
    n_planned: int | None  # the questions the run was started for (None: an older run's record does not say)
    limit: int | None  # questions per course (None: all)
    partial: bool  # not every question of its split: never ranked against full runs
    failed: int  # questions whose call failed (counted wrong, asked again next run)
    unparsed: int  # questions whose answer had no readable letter (counted wrong)
    courses: dict[str, float]  # accuracy (%) per course asked
    M: float | None
    sigma: float | None
    cv: float | None
    I: float | None  # noqa: E741 - the paper's name
    void: bool
    label: str = ""  # the model and settings in words
    why: str | None = None  # why it is not ranked beside the published board (set by partial_runs)

    def as_dict(self) -> JSONObject:
        """As the command line prints it (``why`` only where it was set)."""
        out: JSONObject = asdict(self)
        if self.why is None:
            del out["why"]
        return out


def _split_size(split: str) -> int:
    return sum(len(load_course(c, split)) for c in courses())


def _display_id(model: str) -> str:
    """Runs made before concrete ids stored the name typed (an alias): show the concrete id."""
    try:
        return registry.resolve(model)
    except UserError:
        return model


def model_label(model_id: str) -> str:
    """The model's name as the app shows it ("SmolLM2-135M (tiny local model)"); its id when it is not configured
    here any more."""
    try:
        return registry.get(model_id).label or model_id
    except Exception:  # noqa: BLE001 - a run of a model no longer configured keeps its id
        return model_id


def run_label(r: ExamRun) -> str:
    return (f"{model_label(r.model)} · {r.shots}-shot" + (" · CoT" if r.cot else "") + (" · circular" if r.circular else "")
            + ("" if r.split == "test" else f" · {r.split} split"))


@dataclass(frozen=True)
class ExamAnswer:
    """One stored answer to one exam question (a row of ``exam_answers``): the letter the model gave (None when
    none could be read), the gold letter, whether it was right, and how it went (status, error, seconds)."""

    id: int
    run_id: str
    model: str
    shots: int
    cot: int
    split: str
    course: str
    q_index: int
    predicted: str | None
    gold: str
    correct: int
    parsed: int
    raw: str | None
    created_at: str | None
    rotation: int | None
    status: str | None  # ok | unparsed | failed (None: written before statuses were stored)
    error: str | None
    seconds: float | None


def results(engine: Engine | None = None, run_id: str | None = None) -> list[ExamAnswer]:
    """Every stored exam answer (of one run, given ``run_id``)."""
    t = tables.exam_answers
    q = select(t) if run_id is None else select(t).where(t.c.run_id == run_id)
    with (engine or get_engine()).connect() as c:
        return [ExamAnswer(**{**r, "created_at": None if r["created_at"] is None else str(r["created_at"])})
                for r in c.execute(q).mappings()]


def summarize_run(run_id: str, engine: Engine | None = None, rows: Sequence[ExamAnswer] | None = None) -> ExamRun:
    """Scores of one run over every question it asked.

    A question counts once: right only when every rotation asked was answered right (one rotation unless
    circular), wrong when an answer was wrong, unreadable ("unparsed") or a failed call ("failed"). ``failed``
    and ``unparsed`` count questions (failed first). A circular question not yet asked under all four
    rotations (a cancelled run) is left out until a resume completes it. ``partial`` is True unless the run
    covers every question of its split (a limit, a course subset, or an unfinished run): partial runs are
    not ranked against full ones."""
    if rows is None:
        rows = results(engine, run_id)
    meta = manifest.load(run_id, engine)
    settings = meta.settings if meta is not None else {}
    first = rows[0] if rows else None
    circular = bool(settings.get("circular", run_id.split("|")[4:5] == ["circular"]))
    need = ROTATIONS if circular else 1
    groups: dict[tuple[str, int], dict[int, ExamAnswer]] = {}
    for r in rows:
        groups.setdefault((r.course, r.q_index), {})[r.rotation or 0] = r
    per: dict[str, list[int]] = {}
    failed = unparsed = 0
    for (course, _), by_rot in sorted(groups.items()):
        if len(by_rot) < need:
            continue
        status = [r.status or ("ok" if r.parsed else "unparsed") for r in by_rot.values()]
        failed += "failed" in status
        unparsed += "failed" not in status and "unparsed" in status
        per.setdefault(course, []).append(int(all(r.correct for r in by_rot.values())))
    accs = {c: round(100.0 * sum(v) / len(v), 2) for c, v in sorted(per.items())}
    idx = composite_index(list(accs.values()))
    split = (first.split if first else None) or json_str(settings.get("split")) or "test"
    n = sum(len(v) for v in per.values())
    out = ExamRun(run_id=run_id, model=_display_id((first.model if first else None) or run_id.split("|")[0]),
                  shots=first.shots if first else json_int(settings.get("shots")) or 0,
                  cot=bool(first.cot) if first else bool(settings.get("cot")), split=split, circular=circular, n_questions=n,
                  n_courses=len(per), n_planned=json_int(settings.get("n_questions")),
                  limit=json_int(settings.get("limit")),
                  partial=n < _split_size(split), failed=failed, unparsed=unparsed, courses=accs, M=idx.M,
                  sigma=idx.sigma, cv=idx.cv, I=idx.I, void=idx.void)
    return replace(out, label=run_label(out))


def marks_on(run: ExamRun, course: str, engine: Engine | None = None) -> dict[int, bool]:
    """Per question of ``course`` that ``run`` scored (every rotation asked, where circular): right or not, keyed
    by the question's index in its split."""
    need = ROTATIONS if run.circular else 1
    groups: dict[int, dict[int, ExamAnswer]] = {}
    for r in results(engine, run.run_id):
        if r.course == course:
            groups.setdefault(r.q_index, {})[r.rotation or 0] = r
    return {q: all(r.correct for r in rot.values()) for q, rot in groups.items() if len(rot) >= need}


def all_runs(engine: Engine | None = None) -> list[ExamRun]:
    """A summary for every run made here, over the questions it asked."""
    by_run: dict[str, list[ExamAnswer]] = {}
    for r in results(engine):
        by_run.setdefault(r.run_id, []).append(r)
    return [summarize_run(rid, engine, rows) for rid, rows in by_run.items()]


PUBLISHED = "published (0-shot)"
RUN_HERE = "run here"


@dataclass(frozen=True)
class BoardRow:
    """One model on the leaderboard: its mean accuracy M (%), σ and CV over the courses, I = M·(1−CV), and where
    the figures come from (``PUBLISHED``, or ``RUN_HERE`` with the run's n, failures and id)."""

    model: str
    M: float | None
    sigma: float | None
    cv: float | None
    I: float | None  # noqa: E741 - the paper's name for the composite index
    source: str
    n_questions: int | None = None
    failed: int | None = None
    unparsed: int | None = None
    circular: bool = False
    run_id: str | None = None


def leaderboard(engine: Engine | None = None, runs: Sequence[ExamRun] | None = None) -> list[BoardRow]:
    """The ranked board: the 31 published models and the full runs made here (labelled "run here"), by I.
    Partial runs are left out (see partial_runs): their scores are over a subset of the questions."""
    runs = all_runs(engine) if runs is None else runs
    board = [BoardRow(str(r["model"]), _num(r["mean"]), _num(r["sigma"]), _num(r["cv"]), _num(r["composite_index"]),
                      PUBLISHED) for r in load_published()]
    board += [BoardRow(r.label, r.M, r.sigma, r.cv, r.I, RUN_HERE, r.n_questions, r.failed, r.unparsed, r.circular,
                       r.run_id) for r in runs if not not_ranked_why(r)]
    return sorted(board, key=lambda b: (b.I is None, -(b.I or 0.0)))


def _num(v: JSON) -> float | None:
    """A published figure as a number (None where the table has none)."""
    return float(v) if isinstance(v, int | float) else None


def not_ranked_why(run: ExamRun) -> str | None:
    """Why a run made here is not ranked beside the published board (full 0-shot, direct, test-split runs), or
    None when it is comparable."""
    if run.partial:
        return f"partial: {run.n_questions} of {_split_size(run.split)} {run.split} questions"
    if run.split != "test":
        return "dev split (the published board is on the test split)"
    reasons = [w for w, on in ((f"{run.shots}-shot", run.shots != 0), ("chain of thought", run.cot),
                                ("circular evaluation", run.circular)) if on]
    return f"{', '.join(reasons)} (the published board is 0-shot, direct, single order)" if reasons else None


def partial_runs(engine: Engine | None = None, runs: Sequence[ExamRun] | None = None) -> list[ExamRun]:
    """Runs not ranked beside the published board (part of the exam, or other settings), most questions first,
    each with ``why``."""
    runs = all_runs(engine) if runs is None else runs
    chosen = [replace(r, why=not_ranked_why(r)) for r in runs if r.n_questions and not_ranked_why(r)]
    return sorted(chosen, key=lambda r: (-r.n_questions, r.label))

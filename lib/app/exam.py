"""The EnviroExam use case: what a run will ask and how long it should take, starting it, the partial runs table,
and the quiz a visitor takes (ten questions of one course, scored as the exam scores a model). The page reads its
widgets and draws what comes back."""
from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lib.app import estimates
from lib.app.job_handlers import exam_params
from lib.core import UserError, without_notes
from lib.evaluation import exam as ee
from lib.models import registry
from lib.storage import jobs

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

MAX_LIMIT = 40  # the most questions a course has in the test split
QUIZ_SIZE = 10


@dataclass(frozen=True)
class ExamPlan:
    """What a run with these settings asks, and about how long it takes here."""

    n_courses: int
    questions: int  # questions planned (a limit applies per course)
    calls: int  # questions × rotations (4 when circular)
    estimate: estimates.Estimate  # of the calls still to make (``to_ask``)
    to_ask: int = 0  # calls still to make: those answered already, here or by a run of the same configuration, are kept


def default_limit(model: str, shots: int, cot: bool, circular: bool, n_courses: int) -> int:
    """Questions per course that this model finishes in about a minute here (``MAX_LIMIT``: all of them)."""
    per_question = estimates.exam_rate(model, shots, cot).seconds * (ee.ROTATIONS if circular else 1)
    return estimates.items_that_fit(per_question * n_courses, MAX_LIMIT) or MAX_LIMIT


def plan(model: str, shots: int, cot: bool, courses: Sequence[str] | None, limit: int | None,
         circular: bool, restart: bool = False) -> ExamPlan:
    """The run the settings describe: ``courses`` None or empty is all 42, ``limit`` None or 0 every question. Its
    estimate counts the calls still to make (a resume, or answers another run of the same configuration gave,
    are kept, unless ``restart`` discards this run's)."""
    chosen = list(courses or ee.courses())
    questions = plan_questions(chosen, limit)
    calls = questions * (ee.ROTATIONS if circular else 1)
    to_ask = ee.calls_to_ask(model, shots, cot, courses or None, limit or None, "test", circular, restart)
    est = estimates.exam(model, to_ask, shots, cot, workers=4 if registry.get(model).concurrent else 1)
    return ExamPlan(len(chosen), questions, calls, est, to_ask)


def unranked_because(shots: int, cot: bool, circular: bool, courses: Sequence[str] | None,
                     limit: int | None) -> list[str]:
    """Why a run with these settings would not be ranked beside the 31 published models, in words (empty: it
    would be: all 726 test questions, 0-shot, direct answers, one option order)."""
    chosen = list(courses or ee.courses())
    asked = plan_questions(chosen, limit)
    total = plan_questions(ee.courses(), None)
    return [w for w, on in ((f"it asks {asked} of the {total} test questions", asked < total),
                            (f"{shots}-shot", shots != 0), ("chain of thought", cot),
                            ("circular evaluation", circular)) if on]


def plan_questions(courses: Sequence[str], limit: int | None) -> int:
    """Questions a run over ``courses`` asks with ``limit`` per course (None or 0: every question)."""
    return sum(min(limit, n) if limit else n for n in (len(ee.load_course(c)) for c in courses))


def ranked_plan(model: str) -> ExamPlan:
    """The run that is ranked on the leaderboard (every test question, 0-shot, direct, one order), for this model."""
    return plan(model, 0, False, None, 0, False)


def start(model: str, title: str, shots: int, cot: bool, courses: Sequence[str] | None, limit: int | None,
          circular: bool, restart: bool) -> str:
    """Queue the run on the test split (resumed when one with the same settings exists); its job id."""
    params = exam_params(model, shots, cot, list(courses) if courses else None, limit or None, "test", circular,
                         restart)
    return jobs.submit("exam", params, title)


TIMING_COURSES = 3  # a model is timed on the first question of this many courses before its first run


def start_timing(model: str, title: str, shots: int, cot: bool, circular: bool) -> str:
    """Queue a short run that measures how fast this model answers the exam with these settings here: the first
    question of the first ``TIMING_COURSES`` courses. It is a real run: its answers are listed with the partial
    runs, and a later run with the same settings keeps them rather than asking again."""
    return start(model, title, shots, cot, ee.courses()[:TIMING_COURSES], 1, circular, False)


def running(job_id: str | None) -> bool:
    """Whether that exam job is still queued or running (so its button is not offered twice)."""
    try:
        return bool(job_id) and jobs.get(str(job_id)).active
    except UserError:  # a job id from before the store was reset
        return False


VOID = "void"  # I where CV is above 1 (the paper's word), in every table and figure that shows I


def partial_table(runs: Sequence[ee.ExamRun]) -> list[dict[str, object]]:
    """The partial runs (and runs with other settings) as the page's table shows them, one row each, narrow enough
    for the page: the model without its description, "4 of 40" questions (asked of those the run was started for),
    and the reason it is not ranked, with its courses where it kept to some."""
    return [{"run": without_notes(r.label),
             "questions": f"{r.n_questions} of {r.n_planned}" if r.n_planned else str(r.n_questions),
             "per course": str(r.limit or "all"), "failed": r.failed, "unparsed": r.unparsed,
             "M": _two(r.M), "sigma": _two(r.sigma), "cv": _two(r.cv), "I": VOID if r.void else _two(r.I),
             "not ranked because": (r.why or "") + (f"; {_courses(r.courses)}" if 0 < len(r.courses) < len(ee.courses())
                                                    else "")} for r in runs]


def _courses(courses: Collection[str]) -> str:
    return f"{len(courses)} course{'s' if len(courses) > 1 else ''}: " + ", ".join(ee.course_title(c) for c in courses)


def _two(v: float | None) -> float | None:
    """A score as the tables show it: two decimals (None stays empty: I where CV is above 1)."""
    return None if v is None else round(v, 2)


def new_quiz(course: str, rng: random.Random | None = None) -> list[ee.Question]:
    """``QUIZ_SIZE`` questions of one course's test split, drawn at random (all of them when fewer)."""
    questions = ee.load_course(course)
    return (rng or random.Random()).sample(questions, min(QUIZ_SIZE, len(questions)))


def unanswered(quiz: Sequence[ee.Question], answers: Mapping[int, str | None]) -> list[int]:
    """The numbers (from 1, as the quiz shows them) of the questions left without an answer."""
    return [i for i, q in enumerate(quiz, 1) if answers.get(q.index) is None]


@dataclass(frozen=True)
class QuizScore:
    """A visitor's quiz, scored as a model's run is: an unanswered question counts as wrong."""

    right: int
    total: int
    unanswered: int
    marks: list[str]  # per question, in order: "right", "wrong" or "unanswered"

    @property
    def percent(self) -> float:
        return 100 * self.right / self.total if self.total else 0.0


def score_quiz(quiz: Sequence[ee.Question], answers: Mapping[int, str | None]) -> QuizScore:
    marks = ["unanswered" if answers.get(q.index) is None else "right" if answers[q.index] == q.answer else "wrong"
             for q in quiz]
    return QuizScore(marks.count("right"), len(quiz), marks.count("unanswered"), marks)


@dataclass(frozen=True)
class QuizComparison:
    """The visitor beside the runs made here, each on the same questions as the quiz, and the runs left out (they
    did not ask every one of them), in words."""

    rows: list[dict[str, object]]
    left_out: list[str]


def quiz_comparison(course: str, quiz: Sequence[ee.Question], score: QuizScore, runs: Sequence[ee.ExamRun],
                    engine: Engine | None = None) -> QuizComparison:
    """The visitor's score beside each run's accuracy on exactly the quiz's questions: a run that did not ask all of
    them (a quick run asks one question per course) is left out and named, never compared on other questions."""
    rows: list[dict[str, object]] = [{"who": "you", "accuracy": score.percent, "questions": score.total}]
    left_out = []
    for r in runs:
        if course not in r.courses or r.split != "test":  # the quiz is drawn from the test split
            continue
        marks = ee.marks_on(r, course, engine)
        got = [marks[q.index] for q in quiz if q.index in marks]
        if len(got) < len(quiz):
            left_out.append(f"{r.label} (asked {len(got)} of these {len(quiz)})")
            continue
        rows.append({"who": r.label, "accuracy": round(100 * sum(got) / len(got), 2), "questions": len(got)})
    return QuizComparison(rows, left_out)

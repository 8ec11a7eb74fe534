"""Running EnviroExam: a model answers the selected questions (0/5-shot, chain of thought, circular), each
answer stored as it arrives, so a run resumes; a resume with another configuration is refused (see manifest)."""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, insert, or_, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from lib.core.access import Action, authorize
from lib.core.errors import UserError
from lib.core.pool import run_tasks
from lib.core.progress import CountProgressFn
from lib.core.redaction import redact
from lib.evaluation.exam.dataset import LETTERS, ROTATIONS, Question, course_title, courses, load_course
from lib.evaluation.exam.prompting import (
    EXTRACTOR_VERSION,
    build_prompt,
    extract_letter,
    prompt_templates,
    rotate,
    unrotate,
)
from lib.evaluation.exam.scores import ExamRun, summarize_run
from lib.models import registry
from lib.models.base import LIKELIHOOD, Provider, ProviderError, Request
from lib.qa import manifest
from lib.storage import tables
from lib.storage.engine import get_engine

# A run is one model, its settings (shots, chain of thought, split, circular) and a selection of questions (the
# courses and a per-course limit). Its id follows from all of these, so rerunning the same thing resumes it,
# and a different limit or course subset is a run of its own (labelled partial), never mixed into another
# one's scores. A question a run needs that another run already answered under exactly the same configuration
# (same model entry, prompt templates, shots, chain of thought, split, parsing rule; only the selection or
# circular differ) is copied rather than asked again, so no answer is paid for twice.
#
# Every question asked counts: a call that failed is stored (status "failed", scored wrong) and asked again by
# the next run or resume; an answer with no readable letter is stored as "unparsed", scored wrong, and kept.


@dataclass(frozen=True)
class Selection:
    courses: tuple[str, ...]
    limit: int | None  # None: every question of each course
    n_questions: int  # questions in the selection (before rotations)
    full: bool  # every question of the split

    @property
    def key(self) -> str | None:
        """None for the full exam, else a short hash naming the subset (part of the run id)."""
        if self.full:
            return None
        return manifest.text_hash(json.dumps({"courses": list(self.courses), "limit": self.limit}))[:8]


def selection(course_list: Sequence[str] | None, limit: int | None, split: str = "test") -> Selection:
    if split not in ("test", "dev"):
        raise UserError("split must be test or dev.")
    if limit is not None and limit < 0:
        raise UserError("limit must be 0 (all) or a positive number of questions per course.")
    known = courses()
    chosen = sorted(set(course_list)) if course_list else known
    unknown = [c for c in chosen if c not in known]
    if unknown:
        raise UserError(f"Unknown course(s): {', '.join(unknown)}.")
    sizes = [len(load_course(c, split)) for c in chosen]
    eff = limit if limit and limit < max(sizes) else None
    n = sum(min(size, eff) if eff else size for size in sizes)
    return Selection(tuple(chosen), eff, n, eff is None and chosen == known)


def run_id_for(model: str, shots: int, cot: bool, split: str, circular: bool = False,
               subset: str | None = None) -> str:
    """``model|shots|cot|split`` (+ ``|circular``) (+ ``|partial-<hash>`` for a subset of the exam)."""
    rid = f"{model}|{shots}-shot|{'cot' if cot else 'direct'}|{split}"
    return rid + ("|circular" if circular else "") + (f"|partial-{subset}" if subset else "")


def _uses_likelihood(provider: Provider, cot: bool) -> bool:
    return not cot and LIKELIHOOD in getattr(provider, "capabilities", ())


def manifest_for(provider: Provider, shots: int, cot: bool, split: str, circular: bool, sel: Selection) -> manifest.Manifest:
    return manifest.build("exam", [provider], prompts=prompt_templates(cot), settings={
        "shots": shots, "cot": cot, "split": split, "circular": circular,
        "rotations": ROTATIONS if circular else 1, "courses": list(sel.courses), "limit": sel.limit,
        "n_questions": sel.n_questions, "choice": "likelihood" if _uses_likelihood(provider, cot) else "text",
        "max_tokens": 400 if cot else 100, "extractor": EXTRACTOR_VERSION,
    })


_SELECTION_SETTINGS = ("circular", "rotations", "courses", "limit", "n_questions")


def _answer_key(m: dict[str, Any]) -> str:
    """What makes two runs' answers to the same question (and rotation) the same measurement."""
    settings = {k: v for k, v in (m.get("settings") or {}).items() if k not in _SELECTION_SETTINGS}
    return json.dumps({k: v for k, v in m.items() if k != "app_version"} | {"settings": settings},
                      sort_keys=True, default=str)


def answer_question(provider: Provider, q: Question, shots: Sequence[Question], cot: bool) -> tuple[str | None, str]:
    prompt = build_prompt(q, shots, cot)
    req = Request(prompt=prompt, max_tokens=400 if cot else 100)  # the paper: max_out_len=100
    if _uses_likelihood(provider, cot):
        choice = provider.choose(req, list(LETTERS))
        if choice is not None:
            letter, probs = choice
            return letter, " ".join(f"{k}={v:.3f}" for k, v in probs.items())
    ans = provider.generate(req)
    return extract_letter(ans.text), ans.text


def run_exam(
    model: str, shots: int = 0, cot: bool = False, course_list: Sequence[str] | None = None,
    limit: int | None = None, split: str = "test", engine: Engine | None = None,
    progress: CountProgressFn | None = None, cancel: threading.Event | None = None,
    max_workers: int = 4, circular: bool = False, restart: bool = False,
) -> ExamRun:
    """Run (or resume) the exam and return its summary (see summarize_run).

    ``circular`` asks each question under the 4 rotations of its options and counts it right only when all
    four are. A resume whose configuration differs from the run's manifest is refused; ``restart`` discards
    the run's stored answers first, so it starts over with the current configuration."""
    authorize(Action.RUN_BENCHMARK, "an exam run")
    if shots not in (0, 5):
        raise UserError("shots must be 0 or 5.")
    provider = registry.get(model)
    engine = engine or get_engine()
    sel = selection(course_list, limit, split)
    run_id = run_id_for(provider.id, shots, cot, split, circular, sel.key)
    current = manifest_for(provider, shots, cot, split, circular, sel)
    t = tables.exam_answers
    if restart:
        with engine.begin() as c:
            c.execute(delete(t).where(t.c.run_id == run_id))
            c.execute(delete(tables.run_manifests).where(tables.run_manifests.c.run_id == run_id))
    try:
        # The app version alone changes nothing here: the prompts, parsing rule and model entry are recorded.
        manifest.check_resume(run_id, "exam", current, engine, ignore=("app_version",))
    except UserError as exc:
        raise UserError(f"{exc} An exam run's id follows from its settings, so to start over discard its stored "
                        "answers: tick “Start over” on the page, or call run_exam(..., restart=True).") from exc

    rotations = range(ROTATIONS) if circular else range(1)
    with engine.begin() as c:
        c.execute(delete(t).where(t.c.run_id == run_id, t.c.status == "failed"))  # asked again below
        done = {(r.course, r.q_index, r.rotation or 0) for r in c.execute(
            select(t.c.course, t.c.q_index, t.c.rotation).where(t.c.run_id == run_id))}
    tasks = []
    for course in sel.courses:
        qs = load_course(course, split)[: sel.limit or None]
        examples = load_course(course, "dev")[:5] if shots == 5 else []
        tasks += [(q, examples, k) for q in qs for k in rotations if (course, q.index, k) not in done]
    tasks = _copy_answered(tasks, run_id, current, engine)
    cancel = cancel or threading.Event()
    base = {"run_id": run_id, "model": provider.id, "shots": shots, "cot": int(cot), "split": split}

    def work(q: Question, examples: list[Question], k: int) -> str:
        if cancel.is_set():
            return "cancelled"
        name = f"{course_title(q.course)}, question {q.index + 1}" + (f", rotation {k}" if circular else "")
        provider.take_busy()  # the model's own time for this question, not time queued behind other workers
        started = time.perf_counter()
        try:
            letter, raw = answer_question(provider, rotate(q, k), examples, cot)
        except Exception as exc:  # noqa: BLE001 - any failure of one question is that question's, counted wrong
            msg = str(exc) if isinstance(exc, ProviderError) else f"unexpected failure ({type(exc).__name__})"
            row: dict[str, object] = {"predicted": None, "correct": 0, "parsed": 0, "raw": None, "status": "failed",
                   "error": redact(msg)[:1000]}
            name += " failed"
        else:
            predicted = unrotate(letter, k)  # stored in the original option order, like gold
            row = {"predicted": predicted, "correct": int(predicted == q.answer), "parsed": int(letter is not None),
                   "raw": (raw or "")[:2000], "status": "ok" if letter else "unparsed", "error": None}
        row |= base | {"course": q.course, "q_index": q.index, "rotation": k, "gold": q.answer,
                       "seconds": round(provider.take_busy() or (time.perf_counter() - started), 3)}
        try:
            with engine.begin() as c:
                c.execute(insert(t).values(**row))
        except IntegrityError:
            pass  # written by a concurrent run already
        return name

    run_tasks(work, tasks, max_workers if provider.concurrent else 1, progress, cancel)
    return summarize_run(run_id, engine)


def calls_to_ask(model: str, shots: int, cot: bool, course_list: Sequence[str] | None, limit: int | None,
                 split: str = "test", circular: bool = False, restart: bool = False,
                 engine: Engine | None = None) -> int:
    """The model calls a run with these settings would make now: its questions (each under its rotations), less
    those it has answered (unless ``restart``) and those another run answered under the same configuration
    (copied, not asked). A failed answer is asked again. What an estimate of the run's time counts."""
    provider = registry.get(model)
    engine = engine or get_engine()
    sel = selection(course_list, limit, split)
    run_id = run_id_for(provider.id, shots, cot, split, circular, sel.key)
    key = _answer_key(manifest_for(provider, shots, cot, split, circular, sel).as_json())
    rotations = range(ROTATIONS) if circular else range(1)
    wanted = {(c, q.index, k) for c in sel.courses for q in load_course(c, split)[: sel.limit or None]
              for k in rotations}
    m, t = tables.run_manifests, tables.exam_answers
    with engine.connect() as c:
        # with ``restart`` this run's own answers are discarded; another run's are still copied
        same = [r.run_id for r in c.execute(select(m.c.run_id, m.c.manifest).where(m.c.kind == "exam"))
                if not (restart and r.run_id == run_id) and _answer_key(json.loads(r.manifest)) == key]
        answered = {(r.course, r.q_index, r.rotation or 0) for r in c.execute(
            select(t.c.course, t.c.q_index, t.c.rotation).where(
                t.c.run_id.in_(same), or_(t.c.status.is_(None), t.c.status != "failed")))} if same else set()
    return len(wanted - answered)


def _copy_answered(tasks: list[tuple], run_id: str, current: manifest.Manifest, engine: Engine) -> list[tuple]:
    """Copy into this run the answers other runs made under the same configuration; return the tasks left."""
    if not tasks:
        return tasks
    m, t = tables.run_manifests, tables.exam_answers
    key = _answer_key(current.as_json())
    with engine.connect() as c:
        others = [r.run_id for r in c.execute(select(m.c.run_id, m.c.manifest).where(
            m.c.kind == "exam", m.c.run_id != run_id)) if _answer_key(json.loads(r.manifest)) == key]
        if not others:
            return tasks
        wanted = {(q.course, q.index, k) for q, _, k in tasks}
        found: dict[tuple, dict[str, Any]] = {}
        for r in c.execute(select(t).where(t.c.run_id.in_(others), or_(t.c.status.is_(None), t.c.status != "failed"))
                           ).mappings():
            k = (r["course"], r["q_index"], r["rotation"] or 0)
            if k in wanted and k not in found:
                found[k] = {col.name: r[col.name] for col in t.columns if col.name not in ("id", "created_at")} | {
                    "run_id": run_id, "rotation": k[2], "status": r["status"] or ("ok" if r["parsed"] else "unparsed")}
    if found:
        try:
            with engine.begin() as c:
                c.execute(insert(t), list(found.values()))
        except IntegrityError:  # a concurrent run wrote some: copy one by one
            for row in found.values():
                try:
                    with engine.begin() as c:
                        c.execute(insert(t).values(**row))
                except IntegrityError:
                    pass
    return [task for task in tasks if (task[0].course, task[0].index, task[2]) not in found]


def summarize(model: str, shots: int, cot: bool, split: str, course_list: Sequence[str] | None = None,
              limit: int | None = None, engine: Engine | None = None, circular: bool = False) -> ExamRun:
    """The summary of the run these arguments make (see run_exam)."""
    sel = selection(course_list, limit, split)
    return summarize_run(run_id_for(registry.resolve(model), shots, cot, split, circular, sel.key), engine)

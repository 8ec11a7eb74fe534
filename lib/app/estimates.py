"""Time estimates shown before long work starts, from what the same model took on this machine.

Each estimate comes from the median of the most recent measured times of that model (and context mode, or exam
setting); where nothing has been measured yet, a stated rough guess is used and said to be one. Local models run
one call at a time, so their calls add up; remote ones run ``workers`` at a time."""
from __future__ import annotations

import json
import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Engine

from lib.models import cpu_share, registry
from lib.storage import tables
from lib.storage.engine import get_engine

RECENT = 60  # the latest measured calls of one kind are used: settings and machines change

# Rough guesses (seconds per call) for when nothing has been measured yet: local models on 2 cores, a remote API.
GUESS_LOCAL = {"none": 3.0, "pdf": 20.0, "rag": 4.0, "gold": 3.0}
GUESS_REMOTE = {"none": 4.0, "pdf": 15.0, "rag": 5.0, "gold": 4.0}
GUESS_EXTRACTIVE = 0.3
GUESS_EXAM = {"local": 1.0, "remote": 3.0}
GUESS_GENERATE = {"local": 15.0, "remote": 10.0}


@dataclass
class Rate:
    """Seconds per call for one model (and mode), with how many calls it is measured on (0: a rough guess)."""

    seconds: float
    n: int

    @property
    def measured(self) -> bool:
        return self.n > 0


LOW, HIGH = 0.8, 1.5  # the range shown around the expected time (high / low = 1.9): bench/estimates.py checks it
BUSY = 1.2  # a slowdown above this is a busy machine: local work's range runs from its idle time to the slowdown's


@dataclass
class Estimate:
    calls: int
    seconds: float  # the expected time, local models' share already scaled by ``slowdown``
    parts: list[dict[str, Any]] = field(default_factory=list)  # one per model (and mode): calls, rate, n
    slowdown: float = 1.0  # how much slower local models run now than on an idle machine (cpu_share)
    local_s: float = 0.0  # local models' share at the measured (idle machine's) pace, before ``slowdown``

    @property
    def guessed(self) -> bool:
        return any(p["measured_n"] == 0 for p in self.parts)

    @property
    def measured(self) -> bool:
        """Whether any part of it comes from this machine's measured times (else it is a guess only)."""
        return any(p["measured_n"] > 0 for p in self.parts)

    @property
    def _busy(self) -> bool:
        return self.slowdown > BUSY

    @property
    def low(self) -> float:
        """While the machine is busy, local work takes up to ``slowdown`` times its idle time (how much depends on
        the work: a long prompt slows more than a short answer); low and high stay within 2× of each other, and a
        slightly busy machine's range is never narrower than an idle one's."""
        remote = self.seconds - self.local_s * self.slowdown
        return self.local_s * max(LOW, self.slowdown / 2) + remote * LOW

    @property
    def high(self) -> float:
        remote = self.seconds - self.local_s * self.slowdown
        return self.local_s * max(HIGH, self.slowdown) + remote * HIGH

    def text(self, name: Callable[[dict[str, Any]], str] | None = None) -> str:
        """'about 2–4 min (from …)', '…(partly a rough guess: …)', or, with nothing measured here yet, no figure
        but what the run will do. ``name`` turns a part into plain words."""
        name = name or (lambda p: p["what"])
        guessed = list(dict.fromkeys(name(p) for p in self.parts if p["measured_n"] == 0))
        if not self.measured:
            return ("not measured here yet for " + ", ".join(guessed) + ": the run measures it and shows the time "
                    "left as it goes")
        how = ("partly a rough guess: nothing measured here yet for " + ", ".join(guessed)) if guessed else \
            "from the median time of each model's recent calls on this machine"
        if self._busy:
            how += f"; the machine is busy now, so local models run about {self.slowdown:.1f}× slower"
        return f"about {span(self.low, self.high)} ({how})"


def span(low: float, high: float) -> str:
    """A range of times in words: 20–40 s, 2.5–5 min, 12–24 min, 1 h 10 min – 2 h 5 min. The low end is rounded
    down and the high end up, in steps small enough that a range of 2× never reads as 4× (1–4 min for 100–200 s)."""
    a, b = max(0.0, float(low)), max(0.0, float(high))
    if b < 180:
        return f"{max(1, math.floor(a))}–{max(1, math.ceil(b))} s"
    if b < 10 * 60:  # half minutes
        half = lambda x: f"{x:g}"  # noqa: E731 - 2.5, 3 (not 3.0)
        return f"{half(max(0.5, math.floor(a / 30) / 2))}–{half(math.ceil(b / 30) / 2)} min"
    if b < 90 * 60:
        return f"{max(1, math.floor(a / 60))}–{max(1, math.ceil(b / 60))} min"
    return f"{duration(a)} – {duration(b)}"


def time_left(elapsed: float, done: int, total: int) -> str:
    """While a run goes: the time left at its own pace so far, as a range ("about 20–40 s left"); empty before
    the first call has finished."""
    if done <= 0 or total <= done or elapsed <= 0:
        return ""
    return left_words(elapsed / done * (total - done))


def left_words(seconds: float) -> str:
    """A time left as the range a running job shows: "about 20–40 s left"."""
    return f"about {span(seconds * LOW, seconds * HIGH)} left"


class Pace:
    """A running job's time left, from its own pace since it started here (a resumed run's earlier answers, done
    before, are not counted as this run's work)."""

    def __init__(self) -> None:
        self.start: tuple[float, int] | None = None

    def left(self, done: int, total: int) -> str:
        now = time.monotonic()
        if self.start is None:
            self.start = (now, done)
            return ""
        return time_left(now - self.start[0], done - self.start[1], total - self.start[1])


class Countdown:
    """A run of several models' time left, as a range: each model's (and mode's) calls still to come at its own
    pace, which is this run's measured time per call once one has arrived and the estimate's until then. One pace
    for the whole run would read a fast model's pace as the run's (a demo's countdown rose from 15 s to 50 s when
    the extractive baseline's answers came first). No figure while a model still to answer has no pace measured on
    this machine, before or in this run: a rough guess is not shown as a time left."""

    def __init__(self, estimate: Estimate, calls: int | None = None, workers: int = 4) -> None:
        """``calls``: how many calls each part has left (a resumed run's), where not the estimate's own count."""
        self.workers = workers
        self.parts = {(p["model"], p["mode"]): {
            "left": p["calls"] if calls is None else calls, "local": p["local"], "taken": [],
            "measured": p["measured_n"] > 0,
            "guess": p["seconds"] * (estimate.slowdown if p["local"] else 1.0)} for p in estimate.parts}

    def arrived(self, model: str, mode: str, seconds: float) -> None:
        """An answer came, ``seconds`` after the one before it (or the run's start): the wall time, so what runs
        between answers (a question's search, drawing the answer) is counted too, where the answer's own time is
        not. The run's first answer counts too: like each question's first answer it holds a search, which the
        questions to come will need again (left out, the countdown was inside its range 13 of 17 times where it was
        17 of 17: bench/estimates.py)."""
        part = self.parts.get((model, mode))
        if part is None:
            return
        part["left"] = max(0, part["left"] - 1)
        part["taken"].append(max(0.0, float(seconds)))

    @property
    def known(self) -> bool:
        """Whether each part with calls to come has a pace measured here, before this run or in it."""
        return all(p["taken"] or p["measured"] for p in self.parts.values() if p["left"])

    def seconds(self) -> float:
        """The time left at each part's pace: this run's wall time between answers where measured (remote calls'
        overlap is in it already), else the estimate's time per call (remote ones ``workers`` at a time)."""
        total = 0.0
        for p in self.parts.values():
            if p["taken"]:
                total += p["left"] * statistics.fmean(p["taken"])
            else:
                total += p["left"] * float(p["guess"]) / (1 if p["local"] else max(1, self.workers))
        return total

    def left(self) -> str:
        """'about 20–40 s left'; empty when nothing is left or a part's pace is not known yet."""
        if not self.known or not any(p["left"] for p in self.parts.values()):
            return ""
        return left_words(self.seconds())


def duration(seconds: float) -> str:
    """'45 s', '3 min', '1 h 20 min'."""
    s = max(0.0, float(seconds))
    if s < 90:
        return f"{max(1, round(s))} s"
    minutes = round(s / 60)
    return f"{minutes} min" if minutes < 90 else f"{minutes // 60} h {minutes % 60} min"


def _median(values: Sequence[float | None]) -> Rate | None:
    vals = [float(v) for v in values if v is not None and v >= 0]
    return Rate(statistics.median(vals), len(vals)) if vals else None


def _is_local(model_id: str) -> bool:
    try:
        m = registry.get(model_id)
    except Exception:  # noqa: BLE001 - an unknown id is estimated like a remote model
        return False
    return bool(m.local) or not m.concurrent


def answer_rate(model_id: str, mode: str, engine: Engine | None = None, like_ask: bool = False) -> Rate:
    """Seconds per answer of a model in a context mode, latest first: from benchmark answers where there are any,
    else from Ask questions; ``like_ask`` (an estimate of Ask's own work, such as its demo) the other way round.
    The two differ: an Ask answer's time includes its search and, the first time, loading the models (the
    extractive baseline's Ask answers took about 4× its benchmark answers here)."""
    engine = engine or get_engine()
    order = (tables.ask_history, tables.bench_answers) if like_ask else (tables.bench_answers, tables.ask_history)
    for t in order:
        cond = [t.c.model == model_id, t.c.mode == mode, t.c.error.is_(None)]
        if t is tables.bench_answers:
            cond = [t.c.model == model_id, t.c.mode == mode, t.c.status == "ok"]
        with engine.connect() as c:
            got = _median([r[0] for r in c.execute(select(t.c.seconds).where(*cond).order_by(t.c.id.desc())
                                                   .limit(RECENT))])
        if got:
            return got
    if model_id == registry.EXTRACTIVE:
        return Rate(GUESS_EXTRACTIVE, 0)
    return Rate((GUESS_LOCAL if _is_local(model_id) else GUESS_REMOTE).get(mode, 5.0), 0)


def _estimate(parts: list[dict[str, Any]], workers: int) -> Estimate:
    """Local calls queue behind one another, at the speed the machine's load allows now; remote ones overlap."""
    slow = cpu_share.slowdown() if any(p["local"] for p in parts) else 1.0
    local = sum(p["calls"] * p["seconds"] for p in parts if p["local"])
    remote = sum(p["calls"] * p["seconds"] for p in parts if not p["local"]) / max(1, workers)
    return Estimate(sum(p["calls"] for p in parts), local * slow + remote, parts, slow, local)


def benchmark(n_items: int, models: Sequence[str], modes: Sequence[str], engine: Engine | None = None,
              workers: int = 4, from_mode: dict[str, int] | None = None, like_ask: bool = False) -> Estimate:
    """A run of ``n_items`` items over models × modes. ``from_mode`` gives per mode how many items can run in it
    (items whose document is not indexed run only without context and with the gold passage)."""
    parts: list[dict[str, Any]] = []
    for m in models:
        for mode in modes:
            calls = (from_mode or {}).get(mode, n_items)
            rate = answer_rate(m, mode, engine, like_ask)
            parts.append({"what": f"{m} · {mode}", "model": m, "mode": mode, "calls": calls, "seconds": rate.seconds, "measured_n": rate.n,
                          "local": _is_local(m)})
    return _estimate(parts, workers)


TARGET_S = 60.0  # defaults aim at about a minute of work


def items_that_fit(seconds_per_item: float, available: int, target: float = TARGET_S) -> int:
    """How many items a default run should take so it finishes in about ``target`` seconds: 0 (all of them) when
    all fit, else at least 1."""
    if seconds_per_item <= 0:
        return 0
    fit = int(target // seconds_per_item)
    return 0 if fit >= available else max(1, fit)


def _job_rates(kind: str, model_id: str, calls_of: Any, engine: Engine) -> Rate | None:
    """Seconds per call from finished jobs of a kind with that model (jobs record start, end and parameters)."""
    t = tables.jobs
    with engine.connect() as c:
        rows = c.execute(select(t.c.params, t.c.started_at, t.c.ended_at).where(
            t.c.kind == kind, t.c.status == "done").order_by(t.c.created_at.desc()).limit(RECENT)).all()
    values = []
    for params, start, end in rows:
        try:
            p = json.loads(params)
        except ValueError:
            continue
        calls = calls_of(p) if p.get("model") == model_id else 0
        if calls and start and end and end > start:
            values.append((end - start) / calls)
    return _median(values)


def generation(model_id: str, n_passages: int, per_type: dict[str, int], engine: Engine | None = None) -> Estimate:
    """Item writing: one call per passage and question type."""
    engine = engine or get_engine()
    calls = n_passages * sum(1 for n in per_type.values() if n > 0)
    rate = _job_rates("generate", model_id, lambda p: len(p.get("chunks") or []) * sum(
        1 for n in (p.get("per_type") or {}).values() if n > 0), engine)
    local = _is_local(model_id)
    rate = rate or Rate(GUESS_GENERATE["local" if local else "remote"], 0)
    part = {"what": f"{model_id} writing items", "model": model_id, "mode": None, "calls": calls, "seconds": rate.seconds, "measured_n": rate.n,
            "local": local}
    return _estimate([part], 4)


def exam_rate(model_id: str, shots: int, cot: bool, engine: Engine | None = None) -> Rate:
    """Seconds per exam question for a model and setting, from the exam's stored answer times."""
    engine = engine or get_engine()
    t = tables.exam_answers
    with engine.connect() as c:
        values = [r[0] for r in c.execute(select(t.c.seconds).where(
            t.c.model == model_id, t.c.shots == shots, t.c.cot == int(cot), t.c.seconds.is_not(None)).order_by(
            t.c.id.desc()).limit(RECENT))]
    got = _median(values)
    if got:
        return got
    guess = GUESS_EXAM["local" if _is_local(model_id) else "remote"] * (1 + shots / 5) * (4 if cot else 1)
    return Rate(guess, 0)


def exam(model_id: str, n_questions: int, shots: int, cot: bool, engine: Engine | None = None, workers: int = 4) -> Estimate:
    rate = exam_rate(model_id, shots, cot, engine)
    part = {"what": f"{model_id} on the exam", "model": model_id, "mode": None, "calls": n_questions, "seconds": rate.seconds, "measured_n": rate.n,
            "local": _is_local(model_id)}
    return _estimate([part], workers)

"""EnviroExam (Huang et al., 2024): 42 environmental-science courses, multiple choice, in Chinese as published.

Scoring as the paper defines it: s_i = accuracy (%) on course i; M = mean(s_i); σ = population standard
deviation of s_i around M (the paper prints (s_i − 1): a typo for M); CV = σ / M; I = M × (1 − CV) when
0 ≤ CV ≤ 1, else the model is "void".
"""
from __future__ import annotations

import csv
import math
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from . import config, store
from .errors import UserError
from .jobs import run_tasks
from .providers import registry
from .providers.base import ProviderError, Request

DATA = config.DATA_DIR / "enviroexam"
LETTERS = ("A", "B", "C", "D")

# Appendix A of the paper: course → education level (the file names are these names in snake case).
LEVELS = {
    "Environmental Impact Assessment": "Bachelor", "Atmospheric Pollution Control Engineering": "Bachelor",
    "Environmental Monitoring": "Bachelor", "Pollution Control Microbiology": "Bachelor",
    "Environmental Nanotechnology": "Bachelor", "Principles And Applications Of Ecology": "Bachelor",
    "Environmental Physical Pollution And Control": "Bachelor", "Environmental Planning And Management": "Bachelor",
    "Environmental Analytical Chemistry": "Bachelor", "Environmental Science": "Bachelor",
    "Solid Waste Treatment And Resource Utilization": "Bachelor", "Environmental Soil Science": "Bachelor",
    "Specialty Wastewater Treatment": "Bachelor", "Environmental Decision Support System": "Bachelor",
    "Environmental Statistics": "Bachelor", "Environmental Economics": "Bachelor",
    "Indoor Environmental Pollution And Control": "Bachelor", "Industrial Ecology": "Bachelor",
    "Urban Water Supply And Drainage System Engineering": "Bachelor", "Environmental Fluid Mechanics": "Bachelor",
    "Water Pollution Control Engineering": "Bachelor",
    "Environmental Geographic Information System": "Master", "Modern Biology": "Master",
    "Atmospheric Particulate Matter Detection And Analysis Techniques": "Master",
    "Environmental Microwave Chemistry Technology": "Master",
    "Circulate Economy And Industrial Ecology Methodologies": "Master",
    "Clean Production And Energy Conservation And Emissions Reduction": "Master",
    "Reaction Kinetics And Reactor Design": "Master", "Engineering Ethics And Environmental Ethics": "Master",
    "Safe Disposal And Resource Recovery Of Hazardous Waste": "Master",
    "Sludge Treatment Disposal And Resource Utilization": "Master",
    "Theory And Technology Of Air Pollution Prevention And Control": "Master",
    "Theory And Technology Of Environmental Pollution Prevention And Control": "Master",
    "Environmental Electrochemical Theory And Technology": "Master",
    "Advanced Environmental Chemistry": "Doctor", "Modern Detection Techniques": "Doctor",
    "Persistent Organic Pollutants": "Doctor", "Carbon Neutrality Theory And Technology": "Doctor",
    "Environmental Pollution Investigation And Tracing": "Doctor",
    "Environmental Behavior Of Atmospheric Science And Climate Change": "Doctor",
    "Environmental Biotechnology": "Doctor", "Mass Transfer Processes": "Doctor",
}


@dataclass
class Question:
    course: str
    index: int
    question: str
    options: dict[str, str]
    answer: str


def courses() -> list[str]:
    return sorted(p.stem for p in (DATA / "test").glob("*.csv"))


def course_title(course: str) -> str:
    return " ".join(w.capitalize() for w in course.split("_"))


def course_level(course: str) -> str:
    title = course_title(course).lower()
    return next((lvl for name, lvl in LEVELS.items() if name.lower() == title), "Unknown")


def load_course(course: str, split: str = "test") -> list[Question]:
    if split not in ("test", "dev"):
        raise UserError("split must be test or dev.")
    path = DATA / split / f"{course}.csv"
    if not path.exists():
        raise UserError(f"Unknown course '{course}'. Run `python -m lib exam --help` or see the EnviroExam page for the list.")
    with path.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return [Question(course, i, r["Question"].strip(), {k: r[k].strip() for k in LETTERS}, r["Answer"].strip().upper())
            for i, r in enumerate(rows)]


# ----- prompts -----------------------------------------------------------------------------------
def format_question(q: Question, with_answer: bool = False) -> str:
    opts = "\n".join(f"{k}. {q.options[k]}" for k in LETTERS)
    tail = f" {q.answer}\n" if with_answer else ""
    return f"{q.question}\n{opts}\n答案：{tail}"


def build_prompt(q: Question, shots: Sequence[Question] = (), cot: bool = False) -> str:
    """OpenCompass-style prompt; 5-shot puts the course's dev questions, answered, before the question."""
    head = f"以下是关于{course_title(q.course)}（环境科学）考试的单项选择题，请选出其中的正确答案。\n\n"
    examples = "".join(format_question(s, with_answer=True) + "\n" for s in shots)
    body = format_question(q)
    if cot:
        body = body.replace("答案：", "请逐步思考，最后以“答案：X”的格式给出答案。\n")
    return head + examples + body


# ----- letter extraction ---------------------------------------------------------------------------
_PATTERNS = [
    re.compile(r"答案\s*(?:是|为|应该是|应为)?\s*[:：]?\s*[\(（\[]?\s*([ABCD])(?![A-Za-z])", re.I),
    re.compile(r"answer\s*(?:is|:)?\s*[:：]?\s*(?:option\s*)?[\(\[]?\s*([ABCD])\b", re.I),
    re.compile(r"(?:选|选择|option|choice)\s*[\(（\[]?\s*([ABCD])(?![A-Za-z])", re.I),
    re.compile(r"^\s*[\(（\[]?\s*([ABCD])\s*[\)）\]]?\s*(?:[.．。:：、,，]|$|\s)", re.I),
    re.compile(r"[\(（\[]\s*([ABCD])\s*[\)）\]]"),
    re.compile(r"(?<![A-Za-z])([ABCD])(?![A-Za-z])"),
]


def extract_letter(text: str | None) -> str | None:
    """The chosen letter from a free-text answer, or None when none can be read."""
    if not text:
        return None
    t = text.strip()
    # With chain of thought, the last stated answer wins.
    finals = list(_PATTERNS[0].finditer(t)) + list(_PATTERNS[1].finditer(t))
    if finals:
        return max(finals, key=lambda m: m.start()).group(1).upper()
    for pat in _PATTERNS[2:]:
        m = pat.search(t)
        if m:
            return m.group(1).upper()
    return None


# ----- scoring -------------------------------------------------------------------------------------
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


def load_published() -> list[dict[str, Any]]:
    with (DATA / "published_zero_shot.csv").open(encoding="utf-8") as fh:
        return [{k: (v if k == "model" else float(v)) for k, v in r.items()} for r in csv.DictReader(fh)]


# ----- running -------------------------------------------------------------------------------------
def run_id_for(model: str, shots: int, cot: bool, split: str) -> str:
    """Runs with the same settings share an id, so a rerun resumes and never pays for an answer twice."""
    return f"{model}|{shots}-shot|{'cot' if cot else 'direct'}|{split}"


def answer_question(provider: Any, q: Question, shots: Sequence[Question], cot: bool) -> tuple[str | None, str]:
    prompt = build_prompt(q, shots, cot)
    req = Request(prompt=prompt, max_tokens=400 if cot else 100)  # the paper: max_out_len=100
    if not cot:
        choice = provider.choose(req, list(LETTERS))
        if choice is not None:
            letter, probs = choice
            return letter, " ".join(f"{k}={v:.3f}" for k, v in probs.items())
    ans = provider.generate(req)
    return extract_letter(ans.text), ans.text


def run_exam(
    model: str, shots: int = 0, cot: bool = False, course_list: Sequence[str] | None = None,
    limit: int | None = None, split: str = "test", engine: Any = None,
    progress: Callable[[int, int, str], None] | None = None, cancel: threading.Event | None = None,
    max_workers: int = 4,
) -> dict[str, Any]:
    if shots not in (0, 5):
        raise UserError("shots must be 0 or 5.")
    provider = registry.get(model)
    engine = engine or store.get_engine()
    chosen = list(course_list) if course_list else courses()
    unknown = [c for c in chosen if c not in courses()]
    if unknown:
        raise UserError(f"Unknown course(s): {', '.join(unknown)}.")
    run_id = run_id_for(model, shots, cot, split)
    t = store.exam_answers
    with engine.connect() as c:
        done = {(r.course, r.q_index) for r in c.execute(select(t.c.course, t.c.q_index).where(t.c.run_id == run_id))}
    tasks = []
    for course in chosen:
        qs = load_course(course, split)[: limit or None]
        examples = load_course(course, "dev")[:5] if shots == 5 else []
        tasks += [(q, examples) for q in qs if (course, q.index) not in done]
    cancel = cancel or threading.Event()

    def work(q: Question, examples: list[Question]) -> str:
        if cancel.is_set():
            return "cancelled"
        try:
            letter, raw = answer_question(provider, q, examples, cot)
        except ProviderError as exc:
            # Not stored: a provider failure is retried on the next run rather than scored as wrong.
            return f"{q.course} #{q.index}: {exc}"
        row = {"run_id": run_id, "model": model, "shots": shots, "cot": int(cot), "split": split,
               "course": q.course, "q_index": q.index, "predicted": letter, "gold": q.answer,
               "correct": int(letter == q.answer), "parsed": int(letter is not None), "raw": raw[:2000]}
        try:
            with engine.begin() as c:
                c.execute(insert(t).values(**row))
        except IntegrityError:
            pass  # written by a concurrent run already
        return f"{q.course} #{q.index}"

    run_tasks(work, tasks, max_workers if provider.concurrent else 1, progress, cancel)
    return summarize(model, shots, cot, split, chosen, limit, engine)


def results(engine: Any = None) -> list[dict[str, Any]]:
    t = store.exam_answers
    with (engine or store.get_engine()).connect() as c:
        return [dict(r) for r in c.execute(select(t)).mappings()]


def summarize(model: str, shots: int, cot: bool, split: str, course_list: Sequence[str] | None = None,
              limit: int | None = None, engine: Any = None) -> dict[str, Any]:
    run_id = run_id_for(model, shots, cot, split)
    rows = [r for r in results(engine) if r["run_id"] == run_id]
    wanted = set(course_list or courses())
    per: dict[str, list[int]] = {}
    unparsed = 0
    for r in sorted(rows, key=lambda r: (r["course"], r["q_index"])):
        if r["course"] not in wanted or (limit and r["q_index"] >= limit):
            continue
        per.setdefault(r["course"], []).append(r["correct"])
        unparsed += 1 - r["parsed"]
    accs = {c: round(100.0 * sum(v) / len(v), 2) for c, v in sorted(per.items())}
    idx = composite_index(list(accs.values()))
    return {"model": model, "shots": shots, "cot": cot, "split": split,
            "n_questions": sum(len(v) for v in per.values()), "unparsed": unparsed, "courses": accs,
            "M": idx.M, "sigma": idx.sigma, "cv": idx.cv, "I": idx.I, "void": idx.void}


def all_runs(engine: Any = None) -> list[dict[str, Any]]:
    """A summary for every model/setting run here, over the courses it ran."""
    seen = {}
    for r in results(engine):
        seen[r["run_id"]] = (r["model"], r["shots"], bool(r["cot"]), r["split"])
    return [summarize(*key, engine=engine) for key in seen.values()]

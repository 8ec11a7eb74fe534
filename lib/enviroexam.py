"""EnviroExam (Huang et al., 2024): 42 environmental-science courses, multiple choice, in Chinese as published.

Scoring as the paper defines it: s_i = accuracy (%) on course i; M = mean(s_i); σ = population standard
deviation of s_i around M (the paper prints (s_i − 1): a typo for M); CV = σ / M; I = M × (1 − CV) when
0 ≤ CV ≤ 1, else the model is "void".
"""
from __future__ import annotations

import csv
import json
import math
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, insert, inspect, or_, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.schema import CreateIndex, CreateTable

from . import config, manifest, store
from .errors import UserError
from .pool import run_tasks
from .providers import registry
from .providers.base import LIKELIHOOD, ProviderError, Request
from .redact import redact

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
PROMPT_HEAD = "以下是关于{course}（环境科学）考试的单项选择题，请选出其中的正确答案。\n\n"
PROMPT_QUESTION = "{question}\n{options}\n答案：{answer}"
PROMPT_OPTION = "{letter}. {text}"
PROMPT_COT = "请逐步思考，最后以“答案：X”的格式给出答案。\n"  # replaces the closing 答案： under chain of thought


def format_question(q: Question, with_answer: bool = False) -> str:
    opts = "\n".join(PROMPT_OPTION.format(letter=k, text=q.options[k]) for k in LETTERS)
    return PROMPT_QUESTION.format(question=q.question, options=opts, answer=f" {q.answer}\n" if with_answer else "")


def build_prompt(q: Question, shots: Sequence[Question] = (), cot: bool = False) -> str:
    """OpenCompass-style prompt; 5-shot puts the course's dev questions, answered, before the question."""
    head = PROMPT_HEAD.format(course=course_title(q.course))
    examples = "".join(format_question(s, with_answer=True) + "\n" for s in shots)
    body = format_question(q)
    if cot:
        body = body.replace("答案：", PROMPT_COT)
    return head + examples + body


def prompt_templates(cot: bool) -> dict[str, str]:
    """The templates a run's prompts are made from (hashed into its manifest)."""
    return {"head": PROMPT_HEAD, "question": PROMPT_QUESTION, "option": PROMPT_OPTION} | (
        {"cot": PROMPT_COT} if cot else {})


# ----- circular evaluation -------------------------------------------------------------------------
def rotate(q: Question, k: int) -> Question:
    """The question with its options shifted k places (OpenCompass CircularEval): k=1 shows BCDA as ABCD, so
    the option printed under A is the original B, and the gold letter moves with its text."""
    k %= len(LETTERS)
    if not k:
        return q
    opts = {LETTERS[i]: q.options[LETTERS[(i + k) % len(LETTERS)]] for i in range(len(LETTERS))}
    gold = LETTERS[(LETTERS.index(q.answer) - k) % len(LETTERS)]
    return Question(q.course, q.index, q.question, opts, gold)


def unrotate(letter: str | None, k: int) -> str | None:
    """The original letter of an option shown under ``letter`` in rotation k."""
    if letter is None:
        return None
    return LETTERS[(LETTERS.index(letter) + k) % len(LETTERS)]


# ----- letter extraction ---------------------------------------------------------------------------
# The rule, in order:
#   1. a stated final answer ("答案：C", "答案是D", "The answer is (C)", "Answer: A"): the last one wins (chain
#      of thought may state several);
#   2. a cue ("选B", "option D", "choice C"): the first one;
#   3. a letter that opens the reply ("B.", "b", "C、", "(D) …");
#   4. a bracketed letter anywhere ("(b)", "（C）");
#   5. otherwise a bare capital A–D standing alone in the text, but only when exactly one letter appears
#      ("Both A and C look right" names two choices: None).
# Throughout, an "a"/"A" that is English prose is not a choice: a lowercase "a" followed by a word ("is a
# combination", "a trick question"), or a capital "A" that opens a sentence and is followed by a word ("A
# combination of B and C …"). A letter followed by a verb or conjunction ("A is correct", "the answer is A
# because …", "A and C") is still a letter. Nothing readable gives None, which is scored as wrong.
EXTRACTOR_VERSION = 2  # bump when the rule changes: the run manifest records it
_FINAL = [
    re.compile(r"答案\s*(?:是|为|应该是|应为)?\s*[:：]?\s*[\(（\[]?\s*([ABCD])(?![A-Za-z])", re.I),
    re.compile(r"answer\s*(?:is|:)?\s*[:：]?\s*(?:option\s*)?[\(\[]?\s*([ABCD])\b", re.I),
]
_CUE = re.compile(r"(?:选|选择|option|choice)\s*[\(（\[]?\s*([ABCD])(?![A-Za-z])", re.I)
_LEADING = re.compile(r"^\s*[\(（\[]?\s*([ABCD])\s*[\)）\]]?\s*(?:[.．。:：、,，]|$|\s)", re.I)
_BRACKETED = re.compile(r"[\(（\[]\s*([ABCD])\s*[\)）\]]", re.I)
_BARE = re.compile(r"(?<![A-Za-z])([ABCD])(?![A-Za-z])")
_NEXT_WORD = re.compile(r"\s+([A-Za-z][A-Za-z'’-]*)")
_SENTENCE_START = re.compile(r"(?:^|[.!?。！？:：\n])[\s\"'“‘(（]*$")
_LETTER_FOLLOWERS = frozenset({  # words that follow a letter named as a choice, never an article
    "is", "was", "seems", "appears", "looks", "would", "should", "must", "could", "can", "being", "and", "or",
    "but", "because", "since", "as", "so", "then", "vs", "versus", "nor"})


def _is_article(text: str, m: re.Match) -> bool:
    letter = m.group(1)
    if letter not in ("a", "A"):
        return False
    nxt = _NEXT_WORD.match(text, m.end(1))
    if not nxt or nxt.group(1).lower() in _LETTER_FOLLOWERS:
        return False
    return letter == "a" or _SENTENCE_START.search(text, 0, m.start(1)) is not None


def extract_letter(text: str | None) -> str | None:
    """The chosen letter from a free-text answer, or None when none can be read (see the rule above)."""
    if not text:
        return None
    t = text.strip()
    finals = [m for pat in _FINAL for m in pat.finditer(t) if not _is_article(t, m)]
    if finals:
        return max(finals, key=lambda m: m.start()).group(1).upper()
    for pat in (_CUE, _LEADING, _BRACKETED):
        m = next((m for m in pat.finditer(t) if not _is_article(t, m)), None)
        if m:
            return m.group(1).upper()
    bare = {m.group(1) for m in _BARE.finditer(t) if not _is_article(t, m)}
    return bare.pop() if len(bare) == 1 else None


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


# ----- runs --------------------------------------------------------------------------------------
# A run is one model, its settings (shots, chain of thought, split, circular) and a selection of questions (the
# courses and a per-course limit). Its id follows from all of these, so rerunning the same thing resumes it,
# and a different limit or course subset is a run of its own (labelled partial), never mixed into another
# one's scores. A question a run needs that another run already answered under exactly the same configuration
# (same model entry, prompt templates, shots, chain of thought, split, parsing rule; only the selection or
# circular differ) is copied rather than asked again, so no answer is paid for twice.
#
# Every question asked counts: a call that failed is stored (status "failed", scored wrong) and asked again by
# the next run or resume; an answer with no readable letter is stored as "unparsed", scored wrong, and kept.
ROTATIONS = len(LETTERS)


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


def _uses_likelihood(provider: Any, cot: bool) -> bool:
    return not cot and LIKELIHOOD in getattr(provider, "capabilities", ())


def manifest_for(provider: Any, shots: int, cot: bool, split: str, circular: bool, sel: Selection) -> dict[str, Any]:
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


def answer_question(provider: Any, q: Question, shots: Sequence[Question], cot: bool) -> tuple[str | None, str]:
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
    limit: int | None = None, split: str = "test", engine: Any = None,
    progress: Callable[[int, int, str], None] | None = None, cancel: threading.Event | None = None,
    max_workers: int = 4, circular: bool = False, restart: bool = False,
) -> dict[str, Any]:
    """Run (or resume) the exam and return its summary (see summarize_run).

    ``circular`` asks each question under the 4 rotations of its options and counts it right only when all
    four are. A resume whose configuration differs from the run's manifest is refused; ``restart`` discards
    the run's stored answers first, so it starts over with the current configuration."""
    if shots not in (0, 5):
        raise UserError("shots must be 0 or 5.")
    provider = registry.get(model)
    engine = engine or store.get_engine()
    sel = selection(course_list, limit, split)
    run_id = run_id_for(provider.id, shots, cot, split, circular, sel.key)
    current = manifest_for(provider, shots, cot, split, circular, sel)
    if circular:
        _ensure_rotation_key(engine)
    t = store.exam_answers
    if restart:
        with engine.begin() as c:
            c.execute(delete(t).where(t.c.run_id == run_id))
            c.execute(delete(store.run_manifests).where(store.run_manifests.c.run_id == run_id))
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
            row = {"predicted": None, "correct": 0, "parsed": 0, "raw": None, "status": "failed",
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


def _copy_answered(tasks: list[tuple], run_id: str, current: dict[str, Any], engine: Any) -> list[tuple]:
    """Copy into this run the answers other runs made under the same configuration; return the tasks left."""
    if not tasks:
        return tasks
    m, t = store.run_manifests, store.exam_answers
    key = _answer_key(current)
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


_key_lock = threading.Lock()
_key_ok: set[str] = set()
_OLD_KEY = re.compile(r"UNIQUE\s*\(\s*run_id\s*,\s*course\s*,\s*q_index\s*\)", re.I)


def _ensure_rotation_key(engine: Any) -> None:
    """A store made before circular evaluation keys answers by (run, course, question) only; rotations need the
    rotation in that key. Rebuild the key once, keeping every answer (SQLite cannot alter a constraint)."""
    url = str(engine.url)
    with _key_lock:
        if url in _key_ok:
            return
        uniques = inspect(engine).get_unique_constraints("exam_answers")
        if any(set(u["column_names"]) == {"run_id", "course", "q_index"} for u in uniques):
            if engine.dialect.name == "sqlite":
                _rebuild_sqlite_key(engine)
            else:
                with engine.begin() as c:
                    c.execute(text("UPDATE exam_answers SET rotation = 0 WHERE rotation IS NULL"))
                    c.execute(text("ALTER TABLE exam_answers DROP CONSTRAINT IF EXISTS uq_exam_answer"))
                    c.execute(text("ALTER TABLE exam_answers ADD CONSTRAINT uq_exam_answer "
                                   "UNIQUE (run_id, course, q_index, rotation)"))
        _key_ok.add(url)


def _rebuild_sqlite_key(engine: Any) -> None:
    t = store.exam_answers
    raw = engine.raw_connection()
    con = raw.driver_connection
    before = con.isolation_level
    con.isolation_level = None  # explicit transaction: the rebuild is all or nothing
    try:
        con.execute("BEGIN IMMEDIATE")
        sql = con.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'exam_answers'").fetchone()
        if sql and _OLD_KEY.search(sql[0]):  # still the old key once the write lock is held
            have = {r[1] for r in con.execute("PRAGMA table_info(exam_answers)")}
            cols = ", ".join(f'"{c.name}"' for c in t.columns if c.name in have)
            con.execute("ALTER TABLE exam_answers RENAME TO exam_answers_before_rotation")
            con.execute(str(CreateTable(t).compile(dialect=engine.dialect)))
            con.execute(f"INSERT INTO exam_answers ({cols}) SELECT {cols} FROM exam_answers_before_rotation")
            con.execute("UPDATE exam_answers SET rotation = 0 WHERE rotation IS NULL")
            con.execute("DROP TABLE exam_answers_before_rotation")
            for ix in t.indexes:
                con.execute(str(CreateIndex(ix).compile(dialect=engine.dialect)))
        con.execute("COMMIT")
    except BaseException:
        if con.in_transaction:
            con.execute("ROLLBACK")
        raise
    finally:
        con.isolation_level = before
        raw.close()


# ----- summaries -----------------------------------------------------------------------------------
def results(engine: Any = None) -> list[dict[str, Any]]:
    t = store.exam_answers
    with (engine or store.get_engine()).connect() as c:
        return [dict(r) for r in c.execute(select(t)).mappings()]


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


def run_label(r: dict[str, Any]) -> str:
    return (f"{model_label(r['model'])} · {r['shots']}-shot" + (" · CoT" if r["cot"] else "") + (" · circular" if r["circular"] else "")
            + ("" if r["split"] == "test" else f" · {r['split']} split"))


def summarize_run(run_id: str, engine: Any = None, rows: Sequence[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Scores of one run over every question it asked.

    A question counts once: right only when every rotation asked was answered right (one rotation unless
    circular), wrong when an answer was wrong, unreadable ("unparsed") or a failed call ("failed"). ``failed``
    and ``unparsed`` count questions (failed first). A circular question not yet asked under all four
    rotations (a cancelled run) is left out until a resume completes it. ``partial`` is True unless the run
    covers every question of its split (a limit, a course subset, or an unfinished run): partial runs are
    not ranked against full ones."""
    if rows is None:
        t = store.exam_answers
        with (engine or store.get_engine()).connect() as c:
            rows = [dict(r) for r in c.execute(select(t).where(t.c.run_id == run_id)).mappings()]
    meta = manifest.load(run_id, engine)
    settings = (meta or {}).get("settings", {})
    first = rows[0] if rows else {}
    circular = bool(settings.get("circular", run_id.split("|")[4:5] == ["circular"]))
    need = ROTATIONS if circular else 1
    groups: dict[tuple[str, int], dict[int, dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["course"], r["q_index"]), {})[r.get("rotation") or 0] = r
    per: dict[str, list[int]] = {}
    failed = unparsed = 0
    for (course, _), by_rot in sorted(groups.items()):
        if len(by_rot) < need:
            continue
        status = [r.get("status") or ("ok" if r["parsed"] else "unparsed") for r in by_rot.values()]
        failed += "failed" in status
        unparsed += "failed" not in status and "unparsed" in status
        per.setdefault(course, []).append(int(all(r["correct"] for r in by_rot.values())))
    accs = {c: round(100.0 * sum(v) / len(v), 2) for c, v in sorted(per.items())}
    idx = composite_index(list(accs.values()))
    split = first.get("split") or settings.get("split", "test")
    n = sum(len(v) for v in per.values())
    out = {"run_id": run_id, "model": _display_id(first.get("model") or run_id.split("|")[0]),
           "shots": first.get("shots", settings.get("shots", 0)), "cot": bool(first.get("cot", settings.get("cot"))),
           "split": split, "circular": circular, "n_questions": n, "n_courses": len(per),
           "n_planned": settings.get("n_questions"), "limit": settings.get("limit"),
           "partial": n < _split_size(split), "failed": failed, "unparsed": unparsed, "courses": accs,
           "M": idx.M, "sigma": idx.sigma, "cv": idx.cv, "I": idx.I, "void": idx.void}
    return out | {"label": run_label(out)}


def summarize(model: str, shots: int, cot: bool, split: str, course_list: Sequence[str] | None = None,
              limit: int | None = None, engine: Any = None, circular: bool = False) -> dict[str, Any]:
    """The summary of the run these arguments make (see run_exam)."""
    sel = selection(course_list, limit, split)
    return summarize_run(run_id_for(registry.resolve(model), shots, cot, split, circular, sel.key), engine)


def all_runs(engine: Any = None) -> list[dict[str, Any]]:
    """A summary for every run made here, over the questions it asked."""
    by_run: dict[str, list[dict[str, Any]]] = {}
    for r in results(engine):
        by_run.setdefault(r["run_id"], []).append(r)
    return [summarize_run(rid, engine, rows) for rid, rows in by_run.items()]


PUBLISHED = "published (0-shot)"
RUN_HERE = "run here"


def leaderboard(engine: Any = None, runs: Sequence[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The ranked board: the 31 published models and the full runs made here (labelled "run here"), by I.
    Partial runs are left out (see partial_runs): their scores are over a subset of the questions."""
    runs = all_runs(engine) if runs is None else runs
    board = [{"model": r["model"], "M": r["mean"], "sigma": r["sigma"], "cv": r["cv"], "I": r["composite_index"],
              "source": PUBLISHED, "n_questions": None, "failed": None, "unparsed": None, "circular": False,
              "run_id": None} for r in load_published()]
    board += [{"model": r["label"], "M": r["M"], "sigma": r["sigma"], "cv": r["cv"], "I": r["I"], "source": RUN_HERE,
               "n_questions": r["n_questions"], "failed": r["failed"], "unparsed": r["unparsed"],
               "circular": r["circular"], "run_id": r["run_id"]} for r in runs if not not_ranked_why(r)]
    return sorted(board, key=lambda b: (b["I"] is None, -(b["I"] or 0.0)))


def not_ranked_why(run: dict[str, Any]) -> str | None:
    """Why a run made here is not ranked beside the published board (full 0-shot, direct, test-split runs), or
    None when it is comparable."""
    if run["partial"]:
        return f"partial: {run['n_questions']} of {_split_size(run['split'])} {run['split']} questions"
    if run["split"] != "test":
        return "dev split (the published board is on the test split)"
    reasons = [w for w, on in ((f"{run['shots']}-shot", run["shots"] != 0), ("chain of thought", run["cot"]),
                                ("circular evaluation", run["circular"])) if on]
    return f"{', '.join(reasons)} (the published board is 0-shot, direct, single order)" if reasons else None


def partial_runs(engine: Any = None, runs: Sequence[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Runs not ranked beside the published board (part of the exam, or other settings), most questions first,
    each with ``why``."""
    runs = all_runs(engine) if runs is None else runs
    chosen = [r | {"why": not_ranked_why(r)} for r in runs if r["n_questions"] and not_ranked_why(r)]
    return sorted(chosen, key=lambda r: (-r["n_questions"], r["label"]))

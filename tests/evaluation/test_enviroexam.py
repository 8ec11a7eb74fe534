import math
import re
import threading

import pytest
from sqlalchemy import func, select

from lib.core.errors import UserError
from lib.evaluation import exam as ee
from lib.models import registry
from lib.models.base import Answer, ModelOptions, Provider, ProviderError, Request
from lib.qa import manifest
from lib.storage import tables
from lib.storage.engine import get_engine

EXTRACT_TABLE = [
    ("答案：B", "B"),
    ("答案: c", "C"),
    ("答案是D。", "D"),
    ("The answer is (C)", "C"),
    ("The answer is C.", "C"),
    ("Answer: A", "A"),
    ("B.", "B"),
    ("b", "B"),
    ("(D)", "D"),
    ("选B，因为……", "B"),
    ("我认为正确答案为 A", "A"),
    ("A. 物种多样性", "A"),
    ("首先分析选项A和B……所以答案：C", "C"),
    ("Option D is correct", "D"),
    ("C、", "C"),
    ("I am not sure.", None),
    ("", None),
    ("以上都不对", None),
    # An English article is not a choice; several bare letters are no single choice.
    ("The answer is a combination of A and C", None),
    ("The answer is a combination of factors", None),
    ("The answer is a combination…", None),
    ("A combination of B and C is best", None),
    ("I think it's a trick question", None),
    ("This is a choice a student might make", None),
    ("Both A and C look plausible", None),
    ("I choose A over B", None),
    ("首先A错误，B正确", None),
    ("(b)", "B"),
    ("I would pick (c).", "C"),
    ("The answer is a.", "A"),
    ("The answer is A because the others are wrong.", "A"),
    ("A is correct.", "A"),
    ("B is correct, A is not.", "B"),
    ("It is a hard one; the answer is B.", "B"),
    ("(a) 物种多样性", "A"),
    ("选项中 C 最合适", "C"),
]


@pytest.mark.parametrize("text, letter", EXTRACT_TABLE)
def test_extract_letter(text, letter):
    assert ee.extract_letter(text) == letter


def test_index_by_hand():
    # scores 80, 60, 100: M = 80, σ = sqrt((0 + 400 + 400) / 3) = 16.3299, CV = 0.20412, I = 63.67
    idx = ee.composite_index([80.0, 60.0, 100.0])
    assert idx.M == 80.0
    assert idx.sigma == pytest.approx(math.sqrt(800 / 3), abs=1e-4)
    assert idx.cv == pytest.approx(math.sqrt(800 / 3) / 80, abs=1e-6)
    assert pytest.approx(80 - math.sqrt(800 / 3), abs=1e-3) == idx.I
    assert not idx.void


def test_void_rule():
    # one course at 100, five at 0: M = 16.67, σ = 37.27, CV = 2.24 > 1 → void
    idx = ee.composite_index([100.0, 0, 0, 0, 0, 0])
    assert idx.void and idx.I is None and idx.cv > 1
    assert ee.composite_index([0.0, 0.0]).void
    assert ee.composite_index([]).M is None


def test_published_table_is_arithmetically_consistent():
    rows = ee.load_published()
    assert len(rows) == 31
    for r in rows:
        # I = M × (1 − CV) with CV = σ/M, i.e. I = M − σ, to the table's rounding
        assert r["composite_index"] == pytest.approx(r["mean"] - r["sigma"], abs=0.011), r["model"]
        assert r["cv"] == pytest.approx(r["sigma"] / r["mean"], abs=0.0051), r["model"]
        assert r["composite_index"] == pytest.approx(r["mean"] * (1 - r["cv"]), abs=r["mean"] * 0.0051), r["model"]


def test_recomputing_from_course_scores_reproduces_a_row():
    # A set of course scores with the published llama-3-70b-instruct mean and sigma reproduces its I.
    m, s = 89.59, 9.11
    scores = [m + s, m - s] * 21  # population σ of ±s around m is exactly s
    idx = ee.composite_index(scores)
    assert pytest.approx(m) == idx.M and idx.sigma == pytest.approx(s)
    assert pytest.approx(80.47, abs=0.011) == idx.I  # M and σ are each rounded to 0.005


def test_courses_levels_and_data():
    courses = ee.courses()
    assert len(courses) == 42
    assert sum(len(ee.load_course(c)) for c in courses) == 726
    assert sum(len(ee.load_course(c, "dev")) for c in courses) == 210
    levels = [ee.course_level(c) for c in courses]
    assert "Unknown" not in levels
    assert levels.count("Bachelor") == 21 and levels.count("Master") == 13 and levels.count("Doctor") == 8


def test_five_shot_prompt():
    course = ee.courses()[0]
    q = ee.load_course(course)[0]
    dev = ee.load_course(course, "dev")[:5]
    prompt = ee.build_prompt(q, dev)
    assert all(d.question in prompt for d in dev)
    assert prompt.count("答案：") == 6
    for d in dev:
        assert f"D. {d.options['D']}\n答案： {d.answer}\n" in prompt
    assert prompt.rstrip().endswith("答案：")
    assert prompt.index(dev[-1].question) < prompt.index(q.question)
    assert ee.build_prompt(q).count("答案：") == 1
    assert "逐步" in ee.build_prompt(q, cot=True)


def test_run_resumes_without_repeating_answers(tmp_path):
    eng = get_engine(f"sqlite:///{tmp_path / 'exam.db'}")
    courses = ["environmental_science", "modern_biology"]
    first = ee.run_exam("smollm2", 0, False, courses, limit=1, engine=eng)
    assert first.n_questions == 2 and first.unparsed == 0 and first.failed == 0
    assert first.model == "local/smollm2-135m" and first.partial and first.n_courses == 2
    calls = []
    again = ee.run_exam("smollm2", 0, False, courses, limit=1, engine=eng, progress=lambda d, n, m: calls.append(n))
    assert calls == [] and again.run_id == first.run_id  # the same run resumed: nothing left to ask
    # Another limit is a run of its own; the answers it shares with the first are copied, not asked again.
    second = ee.run_exam("smollm2", 0, False, courses, limit=2, engine=eng,
                         progress=lambda d, n, m: calls.append(n))
    assert set(calls) == {2}  # only the two new questions were asked
    assert second.run_id != first.run_id
    assert second.n_questions == 4 and set(second.courses) == set(courses)
    with eng.connect() as c:
        assert c.execute(select(func.count()).select_from(tables.exam_answers)).scalar() == 2 + 4
    # what an estimate counts: the calls still to make, none where every answer is kept or can be copied
    assert ee.calls_to_ask("smollm2", 0, False, courses, 2, engine=eng) == 0
    assert ee.calls_to_ask("smollm2", 0, False, courses, 3, engine=eng) == 2  # the third question of each course
    assert ee.calls_to_ask("smollm2", 0, False, courses, 1, engine=eng, restart=True) == 0  # copied from the second
    # circular: rotation 0 is the order already asked (copied); the three others are new
    assert ee.calls_to_ask("smollm2", 0, False, courses, 1, engine=eng, circular=True) == 2 * 3
    assert ee.calls_to_ask("smollm2", 5, False, courses, 1, engine=eng) == 2
    assert ee.summarize("smollm2", 0, False, "test", courses, 1, engine=eng).n_questions == 2
    five = ee.run_exam("smollm2", 5, False, courses[:1], limit=1, engine=eng)
    assert five.shots == 5 and five.n_questions == 1
    assert {r.run_id for r in ee.all_runs(eng)} == {first.run_id, second.run_id, five.run_id}
    asked: list[int] = []  # and a run asks exactly what calls_to_ask counted
    ee.run_exam("smollm2", 0, False, courses, limit=1, engine=eng, circular=True,
                progress=lambda d, n, m: asked.append(n))
    assert set(asked) == {2 * 3}


# ----- fake models -------------------------------------------------------------------------------
_OPTION = re.compile(r"^([ABCD])\. (.*)$", re.M)


class ExamFake(Provider):
    """Answers in text from the prompt it is shown. ``mode``: "text" picks the option whose text is the gold
    one (right under any order); "letter" gives the gold letter of the published order (right only there)."""

    family = "test"
    model_name = "exam-fake"
    label = "Exam fake"

    def __init__(self, mode: str = "text") -> None:
        super().__init__()
        self.mode = mode
        self.fail: set[tuple[str, int]] = set()  # (course, index) whose calls raise ProviderError
        self.garble: set[tuple[str, int]] = set()  # (course, index) answered with no readable letter
        self.asked: list[tuple[str, int]] = []
        self._qs = {(q.question, frozenset(q.options.values())): q for c in ee.courses() for q in ee.load_course(c)}
        self._mu = threading.Lock()

    def _generate(self, req: Request) -> Answer:
        tail = req.prompt.rsplit("\n\n", 1)[-1]
        shown = dict(_OPTION.findall(tail))
        q = self._qs[(tail.split("\nA. ", 1)[0], frozenset(shown.values()))]
        with self._mu:
            self.asked.append((q.course, q.index))
        if (q.course, q.index) in self.fail:
            raise ProviderError("Exam fake: server error 500 (key " + "sk-" + "abcdefghijklmnopqrstuvwx)")
        if (q.course, q.index) in self.garble:
            return Answer("I think it's a trick question")
        if self.mode == "letter":
            return Answer(f"答案：{q.answer}")
        return Answer(f"答案：{next(k for k, v in shown.items() if v == q.options[q.answer])}")


@pytest.fixture
def fake():
    registry.all_providers()
    p = registry.register(ExamFake())
    yield p
    registry.reset()


@pytest.fixture
def eng(tmp_path):
    return get_engine(f"sqlite:///{tmp_path / 'exam.db'}")


def rows(eng, run_id):
    t = tables.exam_answers
    with eng.connect() as c:
        return [dict(r) for r in c.execute(select(t).where(t.c.run_id == run_id)).mappings()]


COURSE = "environmental_science"


def test_failures_count_as_wrong_and_are_retried(fake, eng):
    fake.fail = {(COURSE, 1), (COURSE, 3)}
    s1 = ee.run_exam(fake.id, 0, False, [COURSE], limit=4, engine=eng)
    assert s1.n_questions == 4 and s1.failed == 2 and s1.unparsed == 0
    assert s1.courses[COURSE] == 50.0  # the two failed questions count, as wrong
    stored = rows(eng, s1.run_id)
    bad = [r for r in stored if r["status"] == "failed"]
    assert len(stored) == 4 and len(bad) == 2
    assert all(r["parsed"] == 0 and r["correct"] == 0 and r["predicted"] is None for r in bad)
    assert all("server error 500" in r["error"] and "sk-abc" not in r["error"] for r in bad)
    fake.fail, fake.asked = set(), []
    calls = []
    s2 = ee.run_exam(fake.id, 0, False, [COURSE], limit=4, engine=eng, progress=lambda d, n, m: calls.append(n))
    assert sorted(fake.asked) == [(COURSE, 1), (COURSE, 3)] and set(calls) == {2}  # only the failed ones
    assert s2.n_questions == 4 and s2.failed == 0 and s2.courses[COURSE] == 100.0
    assert len(rows(eng, s1.run_id)) == 4


def test_unparsed_counts_as_wrong_and_is_kept(fake, eng):
    fake.garble = {(COURSE, 0)}
    s1 = ee.run_exam(fake.id, 0, False, [COURSE], limit=4, engine=eng)
    assert s1.n_questions == 4 and s1.unparsed == 1 and s1.failed == 0
    assert s1.courses[COURSE] == 75.0
    row = next(r for r in rows(eng, s1.run_id) if r["q_index"] == 0)
    assert row["status"] == "unparsed" and row["parsed"] == 0 and row["raw"] == "I think it's a trick question"
    fake.garble, fake.asked = set(), []
    s2 = ee.run_exam(fake.id, 0, False, [COURSE], limit=4, engine=eng)
    assert fake.asked == [] and s2.unparsed == 1 and s2.courses[COURSE] == 75.0  # an answer, not asked again


def test_summary_keys_and_partial_labelling(fake, eng):
    part = ee.run_exam(fake.id, 0, False, ["modern_biology", COURSE], limit=2, engine=eng)
    assert {"partial", "n_questions", "n_courses", "failed", "unparsed", "circular", "run_id"} <= set(part.as_dict())
    assert part.partial is True and part.n_questions == 4 and part.n_courses == 2 and part.limit == 2
    subset = ee.run_exam(fake.id, 0, False, [COURSE], engine=eng)  # one whole course: still partial
    assert subset.partial and subset.n_questions == len(ee.load_course(COURSE)) and subset.limit is None
    full = ee.run_exam(fake.id, 0, False, engine=eng, max_workers=2)
    assert full.partial is False and full.n_questions == 726 and full.n_courses == 42
    assert full.M == 100.0 and full.I == 100.0
    assert ee.run_exam(fake.id, 0, False, ee.courses(), limit=40, engine=eng).run_id == full.run_id
    board = ee.leaderboard(eng)
    assert sum(b.source == ee.PUBLISHED for b in board) == 31
    here = [b for b in board if b.source == ee.RUN_HERE]
    assert [b.run_id for b in here] == [full.run_id] and here[0].n_questions == 726
    assert board[0].run_id == full.run_id  # ranked by I: 100 beats every published model
    partial = ee.partial_runs(eng)
    assert {r.run_id for r in partial} == {part.run_id, subset.run_id}
    assert all(r.partial and r.n_questions < 726 for r in partial)


def test_circular_evaluation(fake, eng):
    args = (fake.id, 0, False, [COURSE])
    plain = ee.run_exam(*args, limit=3, engine=eng)
    circ = ee.run_exam(*args, limit=3, engine=eng, circular=True)
    assert plain.courses[COURSE] == circ.courses[COURSE] == 100.0  # the right text under every order
    assert circ.circular and not plain.circular and circ.run_id != plain.run_id
    assert "circular" in circ.label and "circular" not in plain.label
    assert circ.n_questions == 3
    stored = rows(eng, circ.run_id)
    assert sorted((r["q_index"], r["rotation"]) for r in stored) == [(i, k) for i in range(3) for k in range(4)]
    assert all(r["gold"] == r["predicted"] for r in stored)  # stored in the published option order

    fake.mode = "letter"  # the published gold letter, whatever is printed under it
    assert ee.run_exam(*args, limit=3, engine=eng, restart=True).courses[COURSE] == 100.0
    circ = ee.run_exam(*args, limit=3, engine=eng, circular=True, restart=True)
    assert circ.n_questions == 3 and circ.courses[COURSE] == 0.0  # right only under the published order
    stored = rows(eng, circ.run_id)
    assert {r["rotation"] for r in stored if r["correct"]} == {0}


def test_circular_question_fails_when_one_rotation_fails(fake, eng):
    q = ee.load_course(COURSE)[0]
    seen = []
    real = fake._generate

    def flaky(req):
        if q.question in req.prompt and len(seen) < 1 and "A. " + q.options["B"] in req.prompt:
            seen.append(1)  # rotation 1 of question 0 fails once
            raise ProviderError("Exam fake: timeout")
        return real(req)

    fake._generate = flaky
    s1 = ee.run_exam(fake.id, 0, False, [COURSE], limit=2, engine=eng, circular=True)
    assert s1.n_questions == 2 and s1.failed == 1 and s1.courses[COURSE] == 50.0
    fake.asked = []
    s2 = ee.run_exam(fake.id, 0, False, [COURSE], limit=2, engine=eng, circular=True)
    assert fake.asked == [(COURSE, 0)] and s2.failed == 0 and s2.courses[COURSE] == 100.0


def test_rotation():
    q = ee.load_course(COURSE)[1]
    for k in range(4):
        r = ee.rotate(q, k)
        assert r.options[r.answer] == q.options[q.answer]
        assert ee.unrotate(r.answer, k) == q.answer
        assert [r.options[x] for x in ee.LETTERS] == [q.options[ee.LETTERS[(i + k) % 4]] for i in range(4)]
    assert list(ee.rotate(q, 1).options.values())[0] == q.options["B"]


def test_manifest_refuses_a_changed_resume(fake, eng):
    s1 = ee.run_exam(fake.id, 0, False, [COURSE], limit=2, engine=eng)
    m = manifest.load(s1.run_id, eng)
    assert m is not None
    assert m.kind == "exam" and m.models[0]["id"] == "test/exam-fake"
    assert {k: m.settings[k] for k in ("shots", "cot", "split", "circular", "courses", "limit")} == {
        "shots": 0, "cot": False, "split": "test", "circular": False, "courses": [COURSE], "limit": 2}
    assert set(m.prompts) == {"head", "question", "option"}
    fake.options = ModelOptions(temperature=0.7)
    with pytest.raises(UserError, match="temperature"):
        ee.run_exam(fake.id, 0, False, [COURSE], limit=2, engine=eng)
    assert m.settings["extractor"] == ee.EXTRACTOR_VERSION
    assert ee.summarize(fake.id, 0, False, "test", [COURSE], 2, engine=eng).n_questions == 2
    # Another limit is another run, and answers made at another temperature are not copied into it.
    fake.asked = []
    other = ee.run_exam(fake.id, 0, False, [COURSE], limit=3, engine=eng)
    assert other.run_id != s1.run_id and len(fake.asked) == 3
    # Starting over discards the stored answers and records the new configuration; the two questions were
    # just answered at 0.7 by the limit-3 run, so they are copied from it rather than asked again.
    fake.asked = []
    s2 = ee.run_exam(fake.id, 0, False, [COURSE], limit=2, engine=eng, restart=True)
    assert s2.run_id == s1.run_id and s2.n_questions == 2 and fake.asked == []
    again = manifest.load(s1.run_id, eng)
    assert again is not None and again.models[0]["options"]["temperature"] == 0.7


def test_store_made_before_rotations_is_upgraded(fake, tmp_path):
    import sqlite3

    path = tmp_path / "old.db"
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE exam_answers (id INTEGER NOT NULL, run_id VARCHAR(64) NOT NULL, model TEXT NOT NULL,
                shots INTEGER NOT NULL, cot INTEGER NOT NULL, split VARCHAR(8) NOT NULL, course TEXT NOT NULL,
                q_index INTEGER NOT NULL, predicted VARCHAR(4), gold VARCHAR(4) NOT NULL, correct INTEGER NOT NULL,
                parsed INTEGER NOT NULL, raw TEXT, created_at DATETIME DEFAULT (CURRENT_TIMESTAMP), PRIMARY KEY (id),
                CONSTRAINT uq_exam_answer UNIQUE (run_id, course, q_index));
            CREATE INDEX ix_exam_answers_run_id ON exam_answers (run_id);
            INSERT INTO exam_answers (run_id, model, shots, cot, split, course, q_index, predicted, gold, correct,
                parsed, raw) VALUES ('smollm2|0-shot|direct|test', 'smollm2', 0, 0, 'test', 'modern_biology', 0,
                NULL, 'A', 0, 0, 'no idea');
        """)
    eng = get_engine(f"sqlite:///{path}")
    plain = ee.run_exam(fake.id, 0, False, [COURSE], limit=1, engine=eng)
    circ = ee.run_exam(fake.id, 0, False, [COURSE], limit=1, engine=eng, circular=True)
    assert circ.n_questions == 1 and len(rows(eng, circ.run_id)) == 4 and plain.n_questions == 1
    legacy = next(r for r in ee.all_runs(eng) if r.run_id == "smollm2|0-shot|direct|test")
    assert legacy.model == "local/smollm2-135m" and legacy.unparsed == 1 and legacy.partial
    assert rows(eng, legacy.run_id)[0]["rotation"] == 0


CLI_KEYS = {"model", "shots", "n_questions", "unparsed", "courses", "M", "sigma", "cv", "I"}
NEW_CLI_KEYS = {"partial", "n_courses", "failed"}


def test_cli_exam_contract(tmp_path):
    import json
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    env = {**os.environ, "NEPAQA_HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-m", "lib", "exam", "--model", "smollm2", "--shots", "0", "--courses",
                          "environmental_science,industrial_ecology", "--limit", "2"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert set(res) == CLI_KEYS | NEW_CLI_KEYS | {"run_id", "circular"}
    assert res["partial"] is True and res["n_courses"] == 2 and res["failed"] == 0 and res["circular"] is False
    assert res["model"] == "local/smollm2-135m"
    assert res["n_questions"] == 4 and set(res["courses"]) == {"environmental_science", "industrial_ecology"}
    bad = subprocess.run([sys.executable, "-m", "lib", "exam", "--model", "smollm2", "--courses", "astrology"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "error: Unknown course" in bad.stderr
    for args in (["--limit", "0"], ["--limit", "-1"], ["--courses", ",,"]):
        proc = subprocess.run([sys.executable, "-m", "lib", "exam", "--model", "smollm2", *args], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 2 and proc.stderr.startswith("error: "), args


def test_only_runs_made_like_the_published_board_are_ranked():
    from dataclasses import replace

    base = ee.ExamRun(run_id="a", model="m", shots=0, cot=False, split="test", circular=False, n_questions=726,
                      n_courses=42, n_planned=726, limit=None, partial=False, failed=0, unparsed=0, courses={},
                      M=30.0, sigma=10.0, cv=0.33, I=20.0, void=False, label="full")
    assert ee.not_ranked_why(base) is None
    assert ee.not_ranked_why(replace(base, partial=True, n_questions=4)) == "partial: 4 of 726 test questions"
    assert ee.not_ranked_why(replace(base, split="dev", n_questions=210)).startswith("dev split")
    assert ee.not_ranked_why(replace(base, shots=5)).startswith("5-shot")
    assert ee.not_ranked_why(replace(base, cot=True, circular=True)).startswith("chain of thought, circular evaluation")
    runs = [base, replace(base, label="five", M=40.0, cv=0.25, I=30.0, run_id="b", shots=5)]
    board = ee.leaderboard(runs=runs)
    assert [b.model for b in board if b.source == ee.RUN_HERE] == ["full"]
    assert [r.label for r in ee.partial_runs(runs=runs)] == ["five"]

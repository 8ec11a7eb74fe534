import math

import pytest

from lib import enviroexam as ee

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
    from sqlalchemy import func, select

    from lib import store

    eng = store.get_engine(f"sqlite:///{tmp_path / 'exam.db'}")
    courses = ["environmental_science", "modern_biology"]
    first = ee.run_exam("smollm2", 0, False, courses, limit=1, engine=eng)
    assert first["n_questions"] == 2 and first["unparsed"] == 0
    calls = []
    second = ee.run_exam("smollm2", 0, False, courses, limit=2, engine=eng,
                         progress=lambda d, n, m: calls.append(n))
    assert set(calls) == {2}  # only the two new questions were asked
    assert second["n_questions"] == 4 and set(second["courses"]) == set(courses)
    with eng.connect() as c:
        assert c.execute(select(func.count()).select_from(store.exam_answers)).scalar() == 4
    five = ee.run_exam("smollm2", 5, False, courses[:1], limit=1, engine=eng)
    assert five["shots"] == 5 and five["n_questions"] == 1


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
    assert set(res) == {"model", "shots", "n_questions", "unparsed", "courses", "M", "sigma", "cv", "I"}
    assert res["n_questions"] == 4 and set(res["courses"]) == {"environmental_science", "industrial_ecology"}
    bad = subprocess.run([sys.executable, "-m", "lib", "exam", "--model", "smollm2", "--courses", "astrology"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "error: Unknown course" in bad.stderr

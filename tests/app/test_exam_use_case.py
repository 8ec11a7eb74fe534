"""The EnviroExam use case (lib/app/exam.py), without Streamlit: the rules the page used to apply itself."""
import random
from dataclasses import replace

from lib.app import exam as exam_case
from lib.evaluation import exam as ee

COURSE = ee.courses()[0]


def test_a_plan_counts_the_questions_of_the_chosen_courses_under_the_limit_and_the_rotations():
    sizes = [len(ee.load_course(c)) for c in ee.courses()]
    whole = exam_case.plan("smollm2", 0, False, None, None, circular=False)
    assert (whole.n_courses, whole.questions, whole.calls) == (42, sum(sizes), sum(sizes)) == (42, 726, 726)
    one = exam_case.plan("smollm2", 0, False, [COURSE], 3, circular=True)
    assert (one.n_courses, one.questions, one.calls) == (1, 3, 3 * ee.ROTATIONS)
    assert one.estimate.calls == 3 * ee.ROTATIONS
    capped = exam_case.plan("smollm2", 0, False, [], 40, circular=False)  # empty: all courses; 40 is every question
    assert capped.questions == 726


def test_the_default_limit_is_between_one_and_every_question_of_a_course():
    n = exam_case.default_limit("smollm2", 0, False, False, 42)
    assert 1 <= n <= exam_case.MAX_LIMIT


def test_a_quiz_is_ten_distinct_questions_of_its_course_and_an_unanswered_one_counts_wrong():
    quiz = exam_case.new_quiz(COURSE, random.Random(1))
    assert len(quiz) == 10 and len({q.index for q in quiz}) == 10
    assert {q.index for q in quiz} <= {q.index for q in ee.load_course(COURSE)}
    answers: dict[int, str | None] = {q.index: q.answer for q in quiz[:6]}
    answers[quiz[6].index] = next(x for x in ee.LETTERS if x != quiz[6].answer)  # one wrong
    for q in quiz[7:]:
        answers[q.index] = None
    assert exam_case.unanswered(quiz, answers) == [8, 9, 10]
    score = exam_case.score_quiz(quiz, answers)
    assert (score.right, score.total, score.unanswered, score.percent) == (6, 10, 3, 60.0)
    assert score.marks == ["right"] * 6 + ["wrong"] + ["unanswered"] * 3


def test_the_quiz_is_compared_only_with_runs_that_asked_the_same_questions(tmp_path):
    """A quick run (one question per course) is never set beside a visitor's ten: each run is scored on exactly the
    quiz's questions, and one that did not ask them all is named as left out, with how many it asked."""
    from sqlalchemy import insert

    from lib.storage import get_engine, tables

    eng = get_engine(f"sqlite:///{tmp_path / 'exam.db'}")
    quiz = exam_case.new_quiz(COURSE, random.Random(2))
    score = exam_case.score_quiz(quiz, {q.index: q.answer for q in quiz[:6]})
    others = [q for q in ee.load_course(COURSE) if q.index not in {x.index for x in quiz}]
    rows = [("full", q, i < 7) for i, q in enumerate(quiz)] + [("full", q, False) for q in others]  # 7 of 10 here
    rows += [("quick", quiz[0], True)]  # one question of the course, right: 100% on the course
    with eng.begin() as c:
        c.execute(insert(tables.exam_answers), [
            {"run_id": rid, "model": "local/smollm2-135m", "shots": 0, "cot": 0, "split": "test", "course": COURSE,
             "q_index": q.index, "gold": q.answer, "predicted": q.answer if right else "Z", "correct": int(right),
             "parsed": 1, "status": "ok"} for rid, q, right in rows])
    runs = [replace(ee.summarize_run(rid, eng), label=rid) for rid in ("full", "quick")]
    assert runs[1].courses[COURSE] == 100.0  # what the old chart set beside the visitor's 60%
    got = exam_case.quiz_comparison(COURSE, quiz, score, runs, eng)
    assert got.rows == [{"who": "you", "accuracy": 60.0, "questions": 10},
                        {"who": "full", "accuracy": 70.0, "questions": 10}]
    assert got.left_out == ["quick (asked 1 of these 10)"]


def test_a_plan_says_why_it_is_not_ranked_and_the_ranked_run_is_every_test_question():
    assert exam_case.unranked_because(0, False, False, None, None) == []
    assert exam_case.unranked_because(0, False, False, None, 1) == ["it asks 42 of the 726 test questions"]
    assert exam_case.unranked_because(5, True, True, [COURSE], None) == [
        f"it asks {len(ee.load_course(COURSE))} of the 726 test questions", "5-shot", "chain of thought",
        "circular evaluation"]
    ranked = exam_case.ranked_plan("smollm2")
    assert (ranked.questions, ranked.calls, ranked.n_courses) == (726, 726, 42)


def test_the_partial_runs_table_names_the_courses_and_says_all_where_no_limit_was_set():
    run = ee.ExamRun(run_id="a", model="m", shots=0, cot=False, split="test", circular=False, n_questions=4,
                     n_courses=1, n_planned=4, limit=None, partial=True, failed=1, unparsed=0, courses={COURSE: 50.0},
                     M=50.0, sigma=0.0, cv=0.0, I=50.0, void=False, label="m · 0-shot",
                     why="partial: 4 of 726 test questions")
    row = exam_case.partial_table([replace(run, label="SmolLM2-135M (tiny local model) · 0-shot")])[0]
    assert row["per course"] == "all" and row["questions"] == "4 of 4" and row["failed"] == 1
    assert row["run"] == "SmolLM2-135M · 0-shot"  # the model's description is left to the Run tab
    assert row["not ranked because"] == f"{run.why}; 1 course: {ee.course_title(COURSE)}"
    assert exam_case.partial_table([replace(run, limit=2)])[0]["per course"] == "2"
    every = {c: 0.0 for c in ee.courses()}
    assert exam_case.partial_table([replace(run, courses=every)])[0]["not ranked because"] == run.why
    older = exam_case.partial_table([replace(run, n_planned=None, courses={})])[0]  # a run from before "of" was kept
    assert (older["questions"], older["not ranked because"]) == ("4", run.why)
    scores = exam_case.partial_table([replace(run, M=21.428571, sigma=3.14159, cv=1.4661, I=None, void=True)])[0]
    assert (scores["M"], scores["sigma"], scores["cv"], scores["I"]) == (21.43, 3.14, 1.47, "void")  # as the metric

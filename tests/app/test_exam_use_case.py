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
    run = ee.ExamRun(run_id="a", model="m", shots=0, cot=False, split="test", circular=False, n_questions=4,
                     n_courses=1, n_planned=4, limit=None, partial=False, failed=0, unparsed=0,
                     courses={COURSE: 50.0}, M=50.0, sigma=0.0, cv=0.0, I=50.0, void=False, label="A")
    runs = [run, replace(run, label="B", partial=True, courses={COURSE: 25.0}),
            replace(run, label="C", partial=True, courses={"other": 90.0})]
    assert exam_case.quiz_comparison(COURSE, score, runs) == [
        {"who": "you", "accuracy": 60.0}, {"who": "A", "accuracy": 50.0}, {"who": "B (partial)", "accuracy": 25.0}]


def test_the_partial_runs_table_names_the_courses_and_says_all_where_no_limit_was_set():
    run = ee.ExamRun(run_id="a", model="m", shots=0, cot=False, split="test", circular=False, n_questions=4,
                     n_courses=1, n_planned=4, limit=None, partial=True, failed=1, unparsed=0, courses={COURSE: 50.0},
                     M=50.0, sigma=0.0, cv=0.0, I=50.0, void=False, label="m · 0-shot",
                     why="partial: 4 of 726 test questions")
    row = exam_case.partial_table([run])[0]
    assert row["per course"] == "all" and row["course list"] == ee.course_title(COURSE)
    assert (row["model"], row["not ranked because"], row["failed"]) == ("m · 0-shot", run.why, 1)
    assert exam_case.partial_table([replace(run, limit=2)])[0]["per course"] == 2

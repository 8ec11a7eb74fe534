"""EnviroExam (Huang et al., 2024): 42 environmental-science courses, multiple choice, in Chinese as published.

Scoring as the paper defines it: s_i = accuracy (%) on course i; M = mean(s_i); σ = population standard
deviation of s_i around M (the paper prints (s_i − 1): a typo for M); CV = σ / M; I = M × (1 − CV) when
0 ≤ CV ≤ 1, else the model is "void". This package's face: ``dataset`` (courses, questions, the published
leaderboard), ``prompting`` (prompts, rotations, reading the letter), ``runner`` (runs), ``scores`` (summaries,
leaderboard) and ``translate`` (machine translations shown beside questions, never scored).
"""
from lib.evaluation.exam import translate
from lib.evaluation.exam.dataset import (
    LETTERS,
    LEVELS,
    ROTATIONS,
    Question,
    course_level,
    course_title,
    courses,
    load_course,
    load_published,
)
from lib.evaluation.exam.prompting import (
    EXTRACTOR_VERSION,
    build_prompt,
    extract_letter,
    format_question,
    rotate,
    unrotate,
)
from lib.evaluation.exam.runner import calls_to_ask, run_exam, selection, summarize
from lib.evaluation.exam.scores import (
    PUBLISHED,
    RUN_HERE,
    BoardRow,
    ExamAnswer,
    ExamRun,
    all_runs,
    composite_index,
    leaderboard,
    marks_on,
    model_label,
    not_ranked_why,
    partial_runs,
    results,
    run_label,
    summarize_run,
)

__all__ = [
    "EXTRACTOR_VERSION", "LETTERS", "LEVELS", "PUBLISHED", "ROTATIONS", "RUN_HERE", "BoardRow", "ExamAnswer", "ExamRun", "Question", "all_runs",
    "build_prompt", "calls_to_ask", "composite_index", "course_level", "course_title", "courses", "extract_letter",
    "format_question", "leaderboard", "load_course", "load_published", "marks_on", "model_label", "not_ranked_why",
    "partial_runs", "results", "rotate", "run_exam", "run_label", "selection", "summarize", "summarize_run",
    "translate", "unrotate",
]

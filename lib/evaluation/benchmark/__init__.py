"""NEPAQuAD-style benchmarks: items imported and validated (``dataset``) or generated from gold passages
(``generate``), runs stored and listed (``runs``), run and resumed (``runner``), scored (``scoring``) and reported
with n, intervals and paired tests (``report``)."""
from lib.evaluation.benchmark import report
from lib.evaluation.benchmark.dataset import QUESTION_TYPES, Item, load_items, load_sample_items
from lib.evaluation.benchmark.generate import GUIDELINES, pick_passages
from lib.evaluation.benchmark.runner import Rescored, RunSummary, rescore, run_benchmark, summarize
from lib.evaluation.benchmark.runs import (
    MetricScore,
    RunConfig,
    StoredAnswer,
    StoredRun,
    answers,
    create_run,
    list_runs,
    load_run,
    new_run_id,
    select_items,
)

__all__ = ["GUIDELINES", "QUESTION_TYPES", "Item", "MetricScore", "Rescored", "RunConfig", "RunSummary", "StoredAnswer",
           "StoredRun", "answers", "create_run",
           "list_runs", "load_items", "load_run", "load_sample_items", "new_run_id", "pick_passages", "report",
           "rescore", "run_benchmark", "select_items", "summarize"]

"""A job's parameters: written from its typed record as the jobs table has always held them (the same keys), and
read back into the record, checked, so a handler never reads a loose dict and a row that does not fit is refused
with what to do."""
import json

import pytest

from lib.app import benchmark_params, exam_params, generate_params, ingest_params
from lib.app.job_handlers import reindex_params
from lib.app.job_params import BenchmarkJob, ExamJob, GenerateJob, IngestJob, parse
from lib.core import UserError
from lib.evaluation.benchmark.dataset import Item
from lib.evaluation.benchmark.runs import RunConfig


def test_the_rows_keep_their_keys_and_read_back_into_the_same_records():
    assert ingest_params("/x/a.pdf", "a", 200, 40) == {"path": "/x/a.pdf", "name": "a", "chunk_size": 200,
                                                      "chunk_overlap": 40, "staged": False}
    with_meta = ingest_params("/x/a.pdf", metadata={"title": "T", "states": ["AK"]})
    assert with_meta["metadata"] == {"title": "T", "states": ["AK"]}
    assert parse(IngestJob, json.loads(json.dumps(with_meta))).metadata == {"title": "T", "states": ["AK"]}
    again = reindex_params("d1", 128, 16)
    assert again == {"reindex": "d1", "chunk_size": 128, "chunk_overlap": 16}  # as re-index rows always were
    assert parse(IngestJob, again) == IngestJob(reindex="d1", chunk_size=128, chunk_overlap=16)
    exam = exam_params("m", 5, True, ["c1"], 3, "test", False, True)
    assert exam == {"model": "m", "shots": 5, "cot": True, "courses": ["c1"], "limit": 3, "split": "test",
                    "circular": False, "restart": True, "max_workers": 4}
    assert parse(ExamJob, json.loads(json.dumps(exam))) == ExamJob("m", 5, True, ["c1"], 3, "test", False, True)
    gen = generate_params("d1", [3, 4], "m", {"closed": 2})
    assert parse(GenerateJob, json.loads(json.dumps(gen))) == GenerateJob("d1", [3, 4], "m", {"closed": 2})
    item = Item("1", "closed", "Is it?", "Yes", "It is.", "doc.pdf", page_number=4)
    bench = benchmark_params([item], RunConfig(["m"], ["none"]), run_id="r1")
    assert set(bench) == {"items", "config", "run_id", "max_workers"}
    back = parse(BenchmarkJob, json.loads(json.dumps(bench)))
    assert back.items == [item] and back.config == RunConfig(["m"], ["none"]) and back.run_id == "r1"


def test_an_older_row_is_read_and_one_that_does_not_fit_is_refused_with_what_to_do():
    # numbers written as text and keys no record names (an older row) are read
    old = parse(IngestJob, {"path": "a.pdf", "chunk_size": "200", "retired_key": True})
    assert (old.path, old.chunk_size) == ("a.pdf", 200)
    with pytest.raises(UserError, match=r"do not fit its record, ExamJob \(1 problem\(s\), first: \('model',\)"
                                        r".*start it again instead of resuming it"):
        parse(ExamJob, {"shots": 0})
    # an exam row written before max_workers was stored, or with it empty, runs with 4 workers
    assert parse(ExamJob, {"model": "m", "max_workers": None}).max_workers is None
    assert parse(IngestJob, {"path": "a.pdf", "metadata": {"flag": True, "n": 3}}).metadata == {"flag": True, "n": 3}
    with pytest.raises(UserError, match="GenerateJob"):
        parse(GenerateJob, {"doc_id": "d", "chunks": "three", "model": "m", "per_type": {}})

"""An EIS in volumes from the command line (real subprocesses, a store of their own): a folder of three volumes
indexed as one EIS, listed, searched as one (`--eis`), exported with each volume's title, and one volume deleted
with the others kept; a set with a password-protected volume refused whole, with nothing indexed."""
from __future__ import annotations

import json

import pymupdf

from lib.evaluation.benchmark.runs import answers
from lib.storage.engine import get_engine
from tests.app.test_cli import run_cli
from tests.collection.volume_set import PROJECT, VOLUMES, build_volumes


def test_a_folder_of_volumes_is_one_eis_searched_exported_and_deleted_one_by_one(tmp_path):
    home = tmp_path / "home"
    folder = tmp_path / "feis"
    build_volumes(folder)
    made = json.loads(run_cli(home, "ingest", str(folder), "--volumes").stdout)
    assert [(v["volume"], v["file"], v["status"]) for v in made["volumes"]] == \
        [(1, "volume_1.pdf", "indexed"), (2, "volume_2.pdf", "indexed"), (3, "volume_3.pdf", "indexed")]
    assert made["failed"] == []
    ids = [v["doc_id"] for v in made["volumes"]]

    (eis,) = json.loads(run_cli(home, "volumes", "list").stdout)
    assert eis["eis_id"] == made["eis_id"] and eis["title"] == PROJECT
    assert [(v["volume"], v["label"], v["doc_id"]) for v in eis["volumes"]] == \
        [(n, title, d) for n, ((_, title, _), d) in enumerate(zip(VOLUMES, ids, strict=True), start=1)]

    # "this EIS" from any of its volumes' ids: the passage on unexploded ordnance is volume III's page 14
    hits = json.loads(run_cli(home, "search", "--eis", ids[0], "-k", "3", "unexploded", "ordnance").stdout)
    assert hits[0]["doc_id"] == ids[2] and hits[0]["doc_name"] == f"{PROJECT}, Volume III"
    assert hits[0]["page_start"] <= 14 <= hits[0]["page_end"]

    # a benchmark question on volume I: answered from volume I alone, or with --whole-eis from every volume
    questions = tmp_path / "q.json"
    questions.write_text(json.dumps([{"ID": "q1", "question_type": "recall", "EIS_filename": "volume_1",
                                      "question": "Is there a risk of unexploded ordnance during construction?",
                                      "groundtruth_answer": "A low risk for onsite construction personnel.",
                                      "context": "Low risk for onsite construction personnel encountering "
                                                 "unexploded ordnance."}]))
    searched = {}
    for run_id, extra in (("alone", []), ("whole", ["--whole-eis"])):
        run_cli(home, "bench", "--questions", str(questions), "--models", "extractive", "--modes", "rag", "-k", "3",
                "--run-id", run_id, *extra)
        (answer,) = answers(run_id, get_engine(f"sqlite:///{home / 'nepaqa.db'}"))
        searched[run_id] = {c.doc_id for c in answer.contexts}
    assert searched["alone"] == {ids[0]} and ids[2] in searched["whole"]

    export = json.loads(run_cli(home, "export-metadata").stdout)
    assert [d["volume_title"] for d in export["documents"]] == [t for _, t, _ in VOLUMES]
    assert len(export["projects"]) == len(export["processes"]) == 1

    run_cli(home, "delete", ids[1])
    (eis,) = json.loads(run_cli(home, "volumes", "list").stdout)
    assert [(v["volume"], v["doc_id"]) for v in eis["volumes"]] == [(1, ids[0]), (3, ids[2])]
    left = json.loads(run_cli(home, "search", "--eis", made["eis_id"], "-k", "5", "wetlands").stdout)
    assert left and {h["doc_id"] for h in left} <= {ids[0], ids[2]}

    gone = run_cli(home, "search", "--eis", "nope", "wetlands", check=False)
    assert gone.returncode == 2 and gone.stderr.startswith("error: No EIS of volumes with id 'nope'")


def test_a_set_with_a_password_protected_volume_is_refused_and_nothing_is_indexed(tmp_path):
    home = tmp_path / "home"
    first, second, _ = build_volumes(tmp_path / "set")
    locked = tmp_path / "set" / "volume_2_locked.pdf"
    with pymupdf.open(second) as doc:
        doc.save(locked, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", user_pw="secret")
    proc = run_cli(home, "ingest", str(first), str(locked), "--volumes", check=False)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: Nothing was indexed. Volume 2 (volume_2_locked.pdf): "
                                  "'volume_2_locked.pdf' is password-protected.")
    assert json.loads(run_cli(home, "docs").stdout) == []
    assert json.loads(run_cli(home, "volumes", "list").stdout) == []

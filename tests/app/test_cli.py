"""The command-line contract other issues and outside scripts rely on (real subprocesses)."""
import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT, SAMPLE_PDF


def run_cli(home, *args, check=True):
    env = {**os.environ, "NEPAQA_HOME": str(home)}
    proc = subprocess.run([sys.executable, "-m", "lib", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def cli_home(tmp_path_factory):
    return tmp_path_factory.mktemp("cli_home")


@pytest.fixture(scope="module")
def ingested(cli_home):
    proc = run_cli(cli_home, "ingest", str(SAMPLE_PDF), "--name", "CONUS sample")
    return json.loads(proc.stdout)


def test_ingest_contract(ingested):
    assert set(ingested) == {"doc_id", "name", "pages", "chunks", "empty_pages", "seconds", "ocr_pages", "ocr_failed",
                             "ocr_missing", "status"}
    assert (ingested["ocr_pages"], ingested["ocr_failed"], ingested["ocr_missing"]) == ([], {}, [])
    assert ingested["name"] == "CONUS sample" and ingested["pages"] == 74 and ingested["chunks"] > 50
    assert ingested["status"] == "indexed"


def test_docs_search_and_queries_file(cli_home, ingested, tmp_path):
    out = run_cli(cli_home, "docs").stdout
    docs = json.loads(out)
    meta = docs[0].pop("metadata")
    assert docs == [{"doc_id": ingested["doc_id"], "name": "CONUS sample", "pages": 74, "chunks": ingested["chunks"],
                     "read_by_ocr": [], "scans_unread": [], "tags": []}]
    assert list(meta) == ["title", "project_title", "lead_agency", "cooperating_agencies", "prepared_by", "process_type",
                          "document_type", "volume_title", "publish_date", "location", "states", "eis_number"]
    lead = meta["lead_agency"]  # each field with its source, where it was read and the rules' confidence
    assert (lead["value"], lead["source"], lead["evidence"]["page"]) == ("Missile Defense Agency", "cover_text", 1)
    assert 0.9 <= lead["confidence"] <= 1 and lead["evidence"]["rule"]
    assert meta["title"]["evidence"]["property"] == "Title"
    assert meta["eis_number"] == {"value": None, "source": None, "confidence": None, "evidence": None}
    assert meta["document_type"]["value"] == "Final EIS"
    assert run_cli(cli_home, "docs").stdout == out  # deterministic: same store, same bytes
    hits = json.loads(run_cli(cli_home, "search", "--doc", ingested["doc_id"], "-k", "3", "--method", "bm25",
                              "Fort Drum").stdout)
    assert len(hits) == 3 and set(hits[0]) >= {"doc_id", "doc_name", "page_start", "page_end", "section", "text",
                                               "score"}
    assert hits[0]["doc_name"] == "Continental United States (CONUS) Interceptor Site"  # the project title
    assert hits[0]["doc_file"] == "CONUS sample"
    every = json.loads(run_cli(cli_home, "search", "--all", "-k", "500", "--method", "lexical", "Fort Drum").stdout)
    assert 3 < len(every) <= ingested["chunks"]
    where = json.loads(run_cli(cli_home, "search", "--where", 'lead_agency=Missile Defense,document_type="Final EIS"',
                               "-k", "2", "wetlands").stdout)
    assert len(where) == 2 and {h["doc_id"] for h in where} == {ingested["doc_id"]}
    none = run_cli(cli_home, "search", "--where", "states=AK", "wetlands", check=False)
    assert none.returncode == 2 and "No document matches" in none.stderr
    meta_set = json.loads(run_cli(cli_home, "meta", ingested["doc_id"], "--set", "states=MI, NY",
                                  "--set", 'eis_number="EIS No. 20170012"').stdout)
    assert (meta_set["states"]["value"], meta_set["states"]["source"]) == (["MI", "NY"], "person")
    assert meta_set["states"]["confidence"] is None  # a person's value: no rule weight
    again = json.loads(run_cli(cli_home, "meta", ingested["doc_id"], "--re-extract").stdout)
    assert (again["states"]["value"], again["states"]["source"]) == (["MI", "NY"], "person")  # the edit is kept
    assert again["states"]["extracted"]["value"] == ["ME", "MI", "NY", "OH"]  # and what the document reads
    assert meta_set["eis_number"]["value"] == "EIS No. 20170012"
    tagged = json.loads(run_cli(cli_home, "meta", ingested["doc_id"], "--set", "tags=Missile defense, NY").stdout)
    assert tagged["tags"] == ["missile defense", "ny"]
    listed = json.loads(run_cli(cli_home, "docs").stdout)
    assert [d["tags"] for d in listed if d["doc_id"] == ingested["doc_id"]] == [["missile defense", "ny"]]
    by_tag = json.loads(run_cli(cli_home, "search", "--where", "tag=ny", "-k", "1", "wetlands").stdout)
    assert [h["doc_id"] for h in by_tag] == [ingested["doc_id"]]
    none = run_cli(cli_home, "search", "--where", "tag=caribou", "wetlands", check=False)
    assert none.returncode == 2 and "No document matches" in none.stderr
    ceq = json.loads(run_cli(cli_home, "export-metadata").stdout)
    assert set(ceq) == {"projects", "processes", "documents"} and ceq["documents"][0]["document_type"] == "Final EIS"
    png = tmp_path / "p5.png"
    page = json.loads(run_cli(cli_home, "page", ingested["doc_id"], "5", "--highlight",
                              "The Missile Defense Agency", "--out", str(png)).stdout)
    assert page["page"] == 5 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    qfile = tmp_path / "q.txt"
    qfile.write_text("Fort Drum wetlands\nnoise during construction\n\nwater supply\n")
    lists = json.loads(run_cli(cli_home, "search", "--doc", ingested["doc_id"], "--queries", str(qfile), "-k", "2").stdout)
    assert len(lists) == 3 and all(len(lst) == 2 for lst in lists)


def test_errors_exit_2(cli_home, ingested, bad_files):
    for kind in ("corrupt", "encrypted", "scanned", "zero_pages", "empty", "not_pdf"):
        proc = run_cli(cli_home, "ingest", str(bad_files[kind]), check=False)
        assert proc.returncode == 2, (kind, proc.stderr)
        assert proc.stderr.strip().splitlines()[-1].startswith("error: "), proc.stderr
        assert proc.stdout == ""
    proc = run_cli(cli_home, "search", "--doc", "missing", "q", check=False)
    assert proc.returncode == 2 and "error: No indexed document" in proc.stderr
    proc = run_cli(cli_home, "search", "--doc", ingested["doc_id"], "--method", "magic", "q", check=False)
    assert proc.returncode == 2 and "error:" in proc.stderr
    env_big = run_cli(cli_home, "docs")  # still intact after all the failures
    assert len(json.loads(env_big.stdout)) == 1


def test_delete(cli_home, tmp_path, pdf_factory):
    path = pdf_factory("x.pdf", ["Temporary document about groundwater monitoring wells. " * 30])
    doc = json.loads(run_cli(cli_home, "ingest", str(path)).stdout)
    run_cli(cli_home, "delete", doc["doc_id"])
    ids = [d["doc_id"] for d in json.loads(run_cli(cli_home, "docs").stdout)]
    assert doc["doc_id"] not in ids
    assert run_cli(cli_home, "delete", doc["doc_id"], check=False).returncode == 2


def test_verdict_reads_one_answer_per_line(tmp_path):
    f = tmp_path / "answers.txt"
    f.write_text("Yes, the Army consulted USFWS.\n"
                 "The proposed action would not affect wetlands.\n"
                 "\n"
                 "It is not clear from the passage.\n"
                 "The line crosses wetlands on the right-of-way. Therefore, the answer is: No.\n"
                 "Executive Order No. 11990 applies to wetlands.\n", encoding="utf-8")
    proc = run_cli(tmp_path, "verdict", "--file", str(f))
    assert json.loads(proc.stdout) == ["yes", "no", "unclear", "unclear", "no", "unclear"]
    f16 = tmp_path / "answers16.txt"
    f16.write_text("No.\nYes.\n", encoding="utf-16")
    assert json.loads(run_cli(tmp_path, "verdict", "--file", str(f16)).stdout) == ["no", "yes"]
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("Sí, the agency agreed.\n".encode("latin-1"))
    for args in (("verdict", "--file", str(bad)), ("verdict", "--file", str(tmp_path / "missing.txt"))):
        proc = run_cli(tmp_path, *args, check=False)
        assert proc.returncode == 2 and proc.stderr.startswith("error: ") and proc.stdout == ""


@pytest.mark.parametrize("argv, allowed", [
    (["docs"], set()), (["models"], set()), (["check"], {"chromadb"}), (["agreement", "LABELS"], set()),
    (["verdict", "--file", "ANSWERS"], set()),
])
def test_commands_that_read_the_store_load_no_model(cli_home, ingested, tmp_path, argv, allowed):
    """Instant start: listing, checking and scoring never import torch or the embedder (10-15 s before)."""
    answers = tmp_path / "a.txt"
    answers.write_text("Yes.\nnegative impacts\n")
    labels = tmp_path / "l.csv"
    labels.write_text("item_id,annotator,label,value\nq1,a,answer_correct,yes\nq1,b,answer_correct,yes\n")
    argv = [str(labels) if a == "LABELS" else str(answers) if a == "ANSWERS" else a for a in argv]
    code = ("import runpy, sys\nsys.argv = ['lib', *sys.argv[1:]]\ntry:\n    runpy.run_module('lib', run_name='__main__')\n"
            "except SystemExit as e:\n    code = e.code\nelse:\n    code = 0\n"
            "heavy = sorted(m for m in ('torch', 'sentence_transformers', 'transformers', 'chromadb', 'pymupdf', "
            "'langchain_text_splitters') if m in sys.modules)\nprint('HEAVY=' + ','.join(heavy), file=sys.stderr)\n"
            "sys.exit(code)\n")
    out = subprocess.run([sys.executable, "-c", code, *argv], cwd=ROOT, env={**os.environ, "NEPAQA_HOME": str(cli_home)},
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-1500:]
    heavy = set(out.stderr.strip().rsplit("HEAVY=", 1)[1].split(",")) - {""}
    assert heavy <= allowed, heavy
    assert out.stdout.strip().startswith(("[", "{"))


def test_page_output_errors_and_a_closed_pipe(cli_home, ingested, tmp_path):
    missing = run_cli(cli_home, "page", ingested["doc_id"], "2", "--out", str(tmp_path / "no" / "p.png"), check=False)
    assert missing.returncode == 2 and missing.stderr.startswith("error: The folder") and "Traceback" not in missing.stderr
    png = tmp_path / "p.png"
    nothing = run_cli(cli_home, "page", ingested["doc_id"], "2", "--highlight", "zebra unicorn parade", "--out", str(png))
    assert json.loads(nothing.stdout)["highlighted_lines"] == 0 and "not found on this page" in nothing.stderr
    # `search … | head -c 10`: the reader closes the pipe long before the ~250 KB of hits are written (more than a
    # pipe holds); no traceback, no error
    env = {**os.environ, "NEPAQA_HOME": str(cli_home)}
    piped = subprocess.run(f"'{sys.executable}' -m lib search --all -k 250 impacts | head -c 10; "
                           "exit ${PIPESTATUS[0]}", shell=True, executable="/bin/bash", cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=300)
    assert len(piped.stdout) == 10 and piped.returncode == 0, piped.stderr[-1500:]
    assert "Traceback" not in piped.stderr and "BrokenPipe" not in piped.stderr, piped.stderr

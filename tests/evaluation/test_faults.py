"""Faults the store and the providers must survive (issue: nothing lost, nothing leaked)."""
import json
import os
import subprocess
import sys

import pytest

from lib.core import config
from lib.evaluation.benchmark.dataset import load_items
from lib.evaluation.benchmark.runner import run_benchmark
from lib.evaluation.benchmark.runs import RunConfig, answers
from lib.models import registry
from lib.storage import tables
from lib.storage.engine import get_engine
from tests.conftest import ROOT
from tests.fake_llm_server import FakeLLMServer

KEY = "sk-test-FAULTKEY1234567890abcdef"

OPENAI_OK = {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
             "choices": [{"index": 0, "message": {"role": "assistant", "content": "Yes."}, "finish_reason": "stop"}],
             "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}}
ANTHROPIC_OK = {"id": "m", "type": "message", "role": "assistant", "model": "c", "stop_reason": "end_turn",
                "content": [{"type": "text", "text": "Yes."}], "stop_sequence": None,
                "usage": {"input_tokens": 5, "output_tokens": 1}}


def hostile(ok: dict, family: str) -> dict[str, tuple]:
    """What a broken or hostile server can send instead of an answer."""
    if family == "anthropic":
        odd = {"null choices": ("json", ok | {"content": None}),
               "non-string content": ("json", ok | {"content": [{"type": "text", "text": 123}]}),
               "bad usage": ("json", ok | {"usage": {"input_tokens": "lots", "output_tokens": None}}),
               "wrong schema": ("json", {"hello": "world"})}
    else:
        odd = {"null choices": ("json", ok | {"choices": None}),
               "non-string content": ("json", ok | {"choices": [{"index": 0, "message": {"role": "assistant",
                                                                                     "content": 123}}]}),
               "bad usage": ("json", ok | {"usage": {"prompt_tokens": "lots", "completion_tokens": -3}}),
               "wrong schema": ("json", {"hello": "world"})}
    return odd | {
        "non-JSON": ("raw", 200, b"this is not json", "application/json"),
        "HTML error page": ("raw", 502, b"<html><body><h1>502 Bad Gateway</h1></body></html>", "text/html"),
        "truncated body": ("raw", 200, b'{"id": "c", "choi', "application/json", 400),
    }


@pytest.fixture
def server(monkeypatch):
    with FakeLLMServer() as srv:
        for name, value in {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": srv.url + "/v1", "OPENAI_MODEL": "gpt-test",
                            "ANTHROPIC_API_KEY": KEY.replace("sk-", "sk-ant-"), "ANTHROPIC_BASE_URL": srv.url,
                            "ANTHROPIC_MODEL": "claude-test", "OPENAI_COMPAT_BASE_URL": srv.url + "/v1",
                            "OPENAI_COMPAT_MODEL": "llama3", "NEPAQA_PROVIDER_TIMEOUT": "2",
                            "NEPAQA_PROVIDER_RETRIES": "0"}.items():
            monkeypatch.setenv(name, value)
        registry.reset()
        yield srv
    registry.reset()


@pytest.mark.parametrize("family", ["openai", "anthropic", "compat"])
def test_any_provider_response_ends_as_one_failed_cell_and_the_run_completes(server, family, tmp_path):
    """Every hostile response, for each family, is one recorded key-free failure; the other answers are kept."""
    odd = hostile(ANTHROPIC_OK if family == "anthropic" else OPENAI_OK, family)
    items, _ = load_items(config.SAMPLE20)
    chosen = [it for it in items if it.question_type != "closed"][: len(odd) + 2]
    # The run asks the items one at a time, in order: each hostile reply meets one item, then two good ones.
    server.script.extend(list(odd.values()) + [("json", ANTHROPIC_OK if family == "anthropic" else OPENAI_OK)] * 2)
    eng = get_engine(f"sqlite:///{tmp_path / 'f.db'}")
    s = run_benchmark(chosen, RunConfig(models=[family], modes=["none"]), None, run_id="fuzz", engine=eng,
                      max_workers=1)
    rows = answers("fuzz", eng)
    assert len(rows) == len(chosen) == s.answers + s.failures
    # "bad usage" still has an answer (counts are estimated); every other hostile reply is a failure
    assert s.failures == len(odd) - 1 and s.answers == 3
    failed = [r for r in rows if r.status == "failed"]
    assert all(r.error and KEY[8:] not in r.error and "Traceback" not in r.error for r in failed)
    ok_rows = [r for r in rows if r.status == "ok"]
    assert all(r.answer == "Yes." and r.tokens_in > 0 for r in ok_rows)


def test_a_key_echoed_by_the_server_is_never_stored_or_printed(server, tmp_path):
    from lib.qa.ask import ask, save_history

    server.script.append(("echo_key",))
    r = ask("Did USFWS attend?", "openai", "none", closed=True)
    assert r.error is None and "Bearer ***" in r.answer and KEY not in r.answer and KEY[8:] not in r.answer
    eng = get_engine(f"sqlite:///{tmp_path / 'k.db'}")
    save_history([r], None, eng)
    with eng.connect() as c:
        dump = "\n".join(str(tuple(row)) for t in tables.metadata.sorted_tables
                         for row in c.execute(t.select()).fetchall())
    assert KEY not in dump and KEY[8:] not in dump
    items, _ = load_items(config.SAMPLE20)
    server.script.extend([("echo_key",)] * 2)
    run_benchmark(items[:2], RunConfig(models=["anthropic"], modes=["none"]), None, run_id="echo", engine=eng,
                  max_workers=1)
    assert all(KEY[8:] not in (a.answer or "") for a in answers("echo", eng))
    env = {**os.environ, "NEPAQA_HOME": str(tmp_path / "h")}
    server.script.append(("echo_key",))
    out = subprocess.run([sys.executable, "-m", "lib", "ask", "--mode", "none", "--model", "openai", "Did it?"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and KEY[8:] not in out.stdout + out.stderr and "Bearer ***" in out.stdout


def test_ask_exits_1_when_its_cell_fails_and_2_for_user_errors(server, tmp_path):
    env = {**os.environ, "NEPAQA_HOME": str(tmp_path)}
    server.script.extend([("500",)])
    out = subprocess.run([sys.executable, "-m", "lib", "ask", "--mode", "none", "--model", "openai", "Q?"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and out.stderr.startswith("error: OpenAI gpt-test: server error 500")
    assert json.loads(out.stdout)["error"]
    out = subprocess.run([sys.executable, "-m", "lib", "ask", "--mode", "none", "--model", "openai/gpt-9", "Q?"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "not configured" in out.stderr


def test_contexts_fit_the_answering_model(services, sample_doc):
    """A 48,000-character gold passage (one 'word', a handful of tokens to the embedder) is cut to SmolLM2's
    window with the same notice as full-PDF mode, and the answer comes back."""
    from lib.qa.ask import ask

    passage = "Wetlands. " + "■" * 48_000
    r = ask("What does the passage say?", "smollm2", "gold", gold=passage)
    model = registry.get("smollm2")
    assert r.error is None, r.error
    assert r.truncated and 0 < r.kept_fraction < 1 and r.notice().startswith("truncated: kept ")
    assert r.tokens_in <= model.context_window
    # RAG chunks are held to the window too
    r = ask("Which agencies attended the meetings?", "smollm2", "rag", services, sample_doc.doc_id, k=40)
    assert r.error is None and r.tokens_in <= model.context_window


def test_chunks_are_bounded_in_characters():
    from lib.documents.chunking import MAX_CHARS_PER_TOKEN, chunk_pages
    from lib.documents.pdf import Page
    from lib.models.embedding import get_embedder

    emb = get_embedder()
    pages = [Page(1, "Normal text about wetlands. " * 20 + "\n" + "■" * 48_000 + "\nMore text.")]
    chunks = chunk_pages(pages, emb.count_tokens, 200, 40, emb.max_tokens)
    assert max(len(c.text) for c in chunks) <= 200 * MAX_CHARS_PER_TOKEN
    assert "".join(c.text for c in chunks).count("■") == 48_000  # nothing dropped


def _write(path, data):
    path.write_bytes(data)
    return str(path)


def test_every_user_error_follows_the_contract(tmp_path):
    """`error: …` on stderr, exit 2, nothing on stdout, nothing changed (no store created for bad input)."""
    home = tmp_path / "home"
    env = {**os.environ, "NEPAQA_HOME": str(home)}
    sample = config.SAMPLE20.read_text(encoding="utf-8")
    latin = _write(tmp_path / "latin.csv", sample.replace("wetland", "wetlând").encode("latin-1", "replace"))
    cases = {
        "agreement on a folder": (["agreement", str(tmp_path)], "is a folder"),
        "non-UTF-8 queries": (["search", "--doc", "x", "--queries", _write(tmp_path / "q.txt", b"caf\xe9 wetlands\n")],
                              "not UTF-8"),
        "latin-1 benchmark CSV": (["bench", "--questions", latin, "--models", "extractive", "--modes", "none"],
                                  "not UTF-8"),
        "limit 0": (["bench", "--questions", str(config.SAMPLE20), "--models", "extractive", "--limit", "0"],
                    "at least 1"),
        "k 0": (["search", "--doc", "x", "-k", "0", "wetlands"], "at least 1"),
        "chunk size 0": (["ingest", str(config.SAMPLE_PDF), "--chunk-size", "0"], "at least 16"),
        "unknown model": (["ask", "--mode", "none", "--model", "gpt-17", "Q?"], "Unknown model"),
        "exam limit -1": (["exam", "--model", "smollm2", "--limit", "-1"], "at least 1"),
        "no courses": (["exam", "--model", "smollm2", "--courses", ",,"], "lists no course"),
        "UTF-32 answers": (["verdict", "--file", _write(tmp_path / "a.txt", "Yes\n".encode("utf-32"))], "UTF-32"),
    }
    for name, (args, needle) in cases.items():
        out = subprocess.run([sys.executable, "-m", "lib", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=300)
        assert out.returncode == 2, (name, out.returncode, out.stderr[-500:])
        assert out.stderr.startswith("error: ") and needle in out.stderr and "Traceback" not in out.stderr, (name, out.stderr)
        assert out.stdout == "", name
    bad_env = {**env, "NEPAQA_MAX_UPLOAD_MB": "abc"}
    out = subprocess.run([sys.executable, "-m", "lib", "ingest", str(config.SAMPLE_PDF)], cwd=ROOT, env=bad_env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and "NEPAQA_MAX_UPLOAD_MB must be a positive number" in out.stderr
    assert not (home / "chroma").exists()


def test_benchmark_files_in_utf16_read_and_odd_page_numbers_are_reported(tmp_path):
    from lib.evaluation.benchmark.dataset import load_items

    text = config.SAMPLE20.read_text(encoding="utf-8")
    items, problems = load_items(text.encode("utf-16"), "csv")
    assert len(items) == 20 and not problems
    lines = text.splitlines()
    header = lines[0].split(",")
    assert "page_number" in header
    rows, _ = load_items(config.SAMPLE20)
    bad = [{**rows[0].as_dict(), "ID": "X1", "page_number": "1e400"}]
    data = json.dumps([{"ID": r["ID"], "question_type": r["question_type"], "question": r["question"],
                        "groundtruth_answer": r["answer"], "context": r["context"], "EIS_filename": r["doc"],
                        "page_number": r["page_number"]} for r in bad])
    items, problems = load_items(data.encode(), "json")
    assert not items and problems[0].column == "page_number" and "1e400" in problems[0].reason


def test_bench_with_a_hostile_provider_completes_and_exits_0(server, tmp_path):
    """The reviewer's case: `bench --models openai,extractive --modes none,gold` used to exit 1 with 3 of 12 answers
    saved. Now every cell is answered or recorded as failed, and the run exits 0 with the failures counted."""
    server.default = ("json", {"choices": None})
    env = {**os.environ, "NEPAQA_HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-m", "lib", "bench", "--questions", str(config.SAMPLE20), "--models",
                          "openai,extractive", "--modes", "none,gold", "--limit", "3"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    s = json.loads(out.stdout)
    assert s["answers"] + s["failures"] == 12 and s["failures"] == 6  # every openai cell failed, none lost
    assert "6 answer(s) failed" in out.stderr and KEY[8:] not in out.stdout + out.stderr


def test_redaction_leaves_eis_prose_alone_and_catches_keys():
    from lib.core.redaction import redact

    prose = ("The risk-assessment and task-specific mitigation plan (Map key: wetlands; Basic 2015/2016) applies "
             "to the right-of-way. Table key: NEPA-2019-0001234-EIS.")
    assert redact(prose) == prose
    for secret in ("sk-" + "abcdefghijklmnopqrstuvwx", "sk-" + "proj-ABCdef1234567890xyz", "sk-ant-" + "api03-abcdef123456"):
        assert secret not in redact(f"the key {secret} leaked") and "***" in redact(f"the key {secret} leaked")
    assert redact("Authorization: Bearer abcdefgh12345678XYZ") == "Authorization: Bearer ***"
    assert redact("http://user:s3cret@host:8000/v1") == "http://***@host:8000/v1"

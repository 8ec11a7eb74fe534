"""Benchmark runner: resume after a kill, no duplicates, failures recorded, summary shape, CLI contract."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest
from sqlalchemy import func, select

from lib import config, store
from lib.benchmark.dataset import load_items
from lib.benchmark.generate import parse_generated_csv, pick_passages
from lib.benchmark.runner import RunConfig, answers, run_benchmark, summarize
from lib.chunking import Chunk
from lib.providers import registry
from lib.providers.base import Answer, Provider, ProviderError, Request
from tests.conftest import ROOT


def count_answers(url, run_id):
    eng = store.get_engine(url)
    t = store.bench_answers
    with eng.connect() as c:
        total = c.execute(select(func.count()).select_from(t).where(t.c.run_id == run_id)).scalar()
        distinct = c.execute(select(func.count()).select_from(
            select(t.c.item_id, t.c.model, t.c.mode).where(t.c.run_id == run_id).distinct().subquery())).scalar()
    return total, distinct


def test_resume_after_kill_loses_and_duplicates_nothing(tmp_path):
    home = tmp_path / "home"
    env = {**os.environ, "NEPAQA_HOME": str(home)}
    url = f"sqlite:///{home / 'nepaqa.db'}"
    cmd = [sys.executable, "-m", "lib", "bench", "--questions", str(config.SAMPLE20), "--models", "smollm2",
           "--modes", "none,gold", "--run-id", "killme", "--workers", "2"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300
    written = 0
    while time.time() < deadline:
        time.sleep(0.5)
        if (home / "nepaqa.db").exists():
            try:
                written = count_answers(url, "killme")[0]
            except Exception:  # noqa: BLE001 - tables not created yet
                written = 0
        if written >= 4 or proc.poll() is not None:
            break
    assert proc.poll() is None, "the run finished before it could be killed: " + proc.stderr.read()[-2000:]
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before, _ = count_answers(url, "killme")
    assert 4 <= before < 40
    out = subprocess.run([sys.executable, "-m", "lib", "bench", "--run-id", "killme"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    summary = json.loads(out.stdout)
    total, distinct = count_answers(url, "killme")
    assert total == distinct == 40  # 20 items × 1 model × 2 modes, each exactly once
    assert summary["answers"] + summary["failures"] == 40
    assert summary["run_id"] == "killme" and summary["n_items"] == 20
    assert set(summary["scores"]["smollm2"]) == {"none", "gold"}
    assert set(summary) >= {"run_id", "n_items", "answers", "failures", "scores", "retrieval_hit_at_k", "judge"}
    assert "token_f1_proxy" in summary["judge"]


class Flaky(Provider):
    id = "flaky"
    label = "Flaky"

    def __init__(self):
        super().__init__()
        self.fail = True

    def _generate(self, req: Request) -> Answer:
        if self.fail:
            raise ProviderError("Flaky: rate limited (429) after retries")
        return Answer("Yes. It did.")


@pytest.fixture
def flaky():
    registry.all_providers()
    p = registry.register(Flaky())
    yield p
    registry.reset()


def test_failures_recorded_then_retried(tmp_path, flaky):
    eng = store.get_engine(f"sqlite:///{tmp_path / 'b.db'}")
    items, _ = load_items(config.SAMPLE20)
    cfg = RunConfig(models=["flaky"], modes=["none"], limit=4)
    s1 = run_benchmark(items, cfg, None, run_id="r1", engine=eng)
    assert s1.failures == 4 and s1.answers == 0
    assert all(a["error"].startswith("Flaky: rate limited") for a in answers("r1", eng))
    flaky.fail = False
    s2 = run_benchmark(None, None, None, run_id="r1", engine=eng)
    assert s2.failures == 0 and s2.answers == 4
    assert s2.scores["flaky"]["none"]["n"] == 4


def test_rag_and_pdf_use_the_indexed_document(services, sample_doc, tmp_path):
    eng = store.get_engine(f"sqlite:///{tmp_path / 'c.db'}")
    items, _ = load_items(config.SAMPLE20)
    s = run_benchmark(items, RunConfig(models=["extractive"], modes=["rag", "gold"], limit=6), services,
                      run_id="rag", engine=eng)
    assert s.skipped_no_doc == 0 and s.answers == 12
    assert s.retrieval_hit_at_k["extractive"] is not None
    rag = [a for a in answers("rag", eng) if a["mode"] == "rag"]
    assert all(a["contexts"] and a["contexts"][0]["page_start"] for a in rag)
    assert all(a["retrieval_hit"] in (0, 1) for a in rag)
    # an item whose document is not indexed runs in none/gold only, and is counted
    for it in items:
        it.doc = "not-indexed-eis"
    s2 = run_benchmark(items, RunConfig(models=["extractive"], modes=["rag", "gold"], limit=3), services,
                       run_id="nodoc", engine=eng)
    assert s2.skipped_no_doc == 3 and s2.answers == 3
    assert summarize("nodoc", eng).scores["extractive"]["rag"]["n"] == 0


def test_generated_csv_is_parsed_strictly():
    good = 'Sure!\nquestion,answer,proof\n"Is it?","Yes","The site is in Ohio."\n"Was it?","maybe","x"\n"a","b"\n'
    rows, problems = parse_generated_csv(good, "closed")
    assert rows == [("Is it?", "yes", "The site is in Ohio.")]
    assert len(problems) == 2
    assert parse_generated_csv("no csv here", "recall") == ([], ["no 'question,answer,proof' header"])


def test_pick_passages_spread_2_6_2():
    chunks = [Chunk(i, f"t{i}", i + 1, i + 1, 0, 1, 1) for i in range(90)]
    picked = pick_passages(chunks, 10)
    thirds = [sum(1 for c in picked if lo <= c.index < lo + 30) for lo in (0, 30, 60)]
    assert thirds == [2, 6, 2]


def test_judge_failures_are_counted_not_averaged(tmp_path, monkeypatch):
    """A judge (the real openai client against a local server) that returns no JSON: each open item is
    recorded as judge_failed, counted in the summary, and left out of the averages."""
    from tests.fake_llm_server import FakeLLMServer

    with FakeLLMServer() as srv:
        srv.default = ("ok", "I cannot classify these statements.")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-judge-key-000000")
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url + "/v1")
        registry.reset()
        eng = store.get_engine(f"sqlite:///{tmp_path / 'j.db'}")
        items, _ = load_items(config.SAMPLE20)
        chosen = [it for it in items if it.question_type != "closed"][:3] + [items[0]]
        s = run_benchmark(chosen, RunConfig(models=["extractive"], modes=["gold"], judge="openai"), None,
                          run_id="judge", engine=eng)
    registry.reset()
    assert s.answers == 4 and s.judge_failures == 3 and s.judge == "openai"
    cell = s.scores["extractive"]["gold"]
    assert cell["correctness"] is None and cell["closed_accuracy"] is not None and cell["n"] == 1
    failed = [a for a in answers("judge", eng) if a["score_status"] == "judge_failed"]
    assert len(failed) == 3 and all(a["score"] is None and "no JSON" in a["score_parts"]["error"] for a in failed)


def test_generate_with_a_real_client_counts_and_queues(tmp_path, monkeypatch):
    """Generation through the openai client against a local server: generated → well-formed → kept."""
    from lib import annotations as ann
    from lib.benchmark.generate import generate
    from tests.fake_llm_server import FakeLLMServer

    passage = ("The proposed action would build an interceptor site at Fort Drum. Wetlands near the access road "
               "would be avoided. Noise from construction would be temporary.")
    chunk = Chunk(0, passage, 12, 12, 0, len(passage), 30)
    with FakeLLMServer() as srv:
        srv.script.extend([
            ("ok", 'question,answer,proof\n"Would wetlands be avoided?","Yes","Wetlands near the access road would be avoided."\n'
                   '"Is noise permanent?","No","The site will become a parking lot after ten years."\n'),
            ("ok", "Here are some questions: 1. What is built?"),
        ])
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-generate-0000000")
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url + "/v1")
        registry.reset()
        rep = generate(registry.get("openai"), [chunk], "eis_test", 30, {"closed": 2, "recall": 2})
    registry.reset()
    assert (rep.generated, rep.well_formed, rep.kept) == (4, 2, 1)
    item = rep.items[0]
    assert item.question_type == "closed" and item.answer == "yes" and item.page_number == 12
    assert item.position == "middle" and item.proof.startswith("Wetlands")
    eng = store.get_engine(f"sqlite:///{tmp_path / 'g.db'}")
    assert ann.add_items(rep.items, "generated:test", eng) == 1
    assert ann.items(source="generated:test", engine=eng)[0]["question"] == "Would wetlands be avoided?"

"""Benchmark runner: resume after a kill, no duplicates, failures recorded, summary shape, CLI contract."""
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict

import pytest
from sqlalchemy import func, select

from lib.core import config
from lib.core.errors import UserError
from lib.documents.chunking import Chunk
from lib.evaluation.benchmark import report
from lib.evaluation.benchmark.dataset import load_items
from lib.evaluation.benchmark.generate import parse_generated_csv, pick_passages
from lib.evaluation.benchmark.runner import Rescored, rescore, run_benchmark, summarize
from lib.evaluation.benchmark.runs import RunConfig, answers
from lib.evaluation.metrics.context_precision_recall import found, gold_sentences
from lib.models import registry
from lib.models.base import Answer, Provider, ProviderError, Request
from lib.storage import tables
from lib.storage.engine import get_engine
from tests.conftest import ROOT


def count_answers(url, run_id):
    eng = get_engine(url)
    t = tables.bench_answers
    with eng.connect() as c:
        total = c.execute(select(func.count()).select_from(t).where(t.c.run_id == run_id)).scalar()
        distinct = c.execute(select(func.count()).select_from(
            select(t.c.item_id, t.c.model, t.c.mode).where(t.c.run_id == run_id).distinct().subquery())).scalar()
    return total, distinct


@pytest.mark.slow  # left out by `bash .ci/run --fast`
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
    assert out.stdout.strip(), out.stderr[-3000:]
    summary = json.loads(out.stdout)
    total, distinct = count_answers(url, "killme")
    assert total == distinct == 40  # 20 items × 1 model × 2 modes, each exactly once
    assert summary["answers"] + summary["failures"] == 40
    assert summary["run_id"] == "killme" and summary["n_items"] == 20
    assert set(summary["scores"]) == {"local/smollm2-135m"}  # keyed by the concrete model, not the alias
    assert set(summary["scores"]["local/smollm2-135m"]) == {"none", "gold"}
    assert set(summary) >= {"run_id", "n_items", "answers", "failures", "scores", "retrieval_hit_at_k", "judge",
                            "majority_baseline", "judge_failures", "no_statements", "manifest"}
    assert summary["manifest"]["models"][0]["id"] == "local/smollm2-135m"
    assert summary["manifest"]["models"][0]["options"]["temperature"] == 0.0
    cell = summary["scores"]["local/smollm2-135m"]["gold"]
    assert cell["metric"] == "token_f1_proxy" and cell["n_closed"] + cell["n_open"] == cell["n"]
    assert set(cell) >= {"closed_accuracy_ci95", "open_correctness", "open_correctness_ci95", "n_closed", "n_open"}
    # the sample's 20 items: 2 closed with gold answers yes and no -> majority baseline 0.5 on n = 2
    assert summary["majority_baseline"]["n"] == 2


class Flaky(Provider):
    family, model_name = "test", "flaky"
    label = "Flaky"

    def __init__(self):
        super().__init__()
        self.fail = True
        self.calls = 0

    def _generate(self, req: Request) -> Answer:
        self.calls += 1
        if self.fail:
            raise ProviderError("Flaky: rate limited (429) after retries")
        return Answer(getattr(self, "reply", "Yes. It did."))


@pytest.fixture
def flaky():
    registry.all_providers()
    p = registry.register(Flaky())
    yield p
    registry.reset()


def test_failures_recorded_then_retried(tmp_path, flaky):
    eng = get_engine(f"sqlite:///{tmp_path / 'b.db'}")
    items, _ = load_items(config.SAMPLE20)
    cfg = RunConfig(models=["test/flaky"], modes=["none"], limit=4)
    s1 = run_benchmark(items, cfg, None, run_id="r1", engine=eng)
    assert s1.failures == 4 and s1.answers == 0
    assert all(a.error.startswith("Flaky: rate limited") for a in answers("r1", eng))
    flaky.fail = False
    s2 = run_benchmark(None, None, None, run_id="r1", engine=eng)
    assert s2.failures == 0 and s2.answers == 4
    assert s2.scores["test/flaky"]["none"].n == 4


def test_rag_and_pdf_use_the_indexed_document(services, sample_doc, tmp_path):
    eng = get_engine(f"sqlite:///{tmp_path / 'c.db'}")
    items, _ = load_items(config.SAMPLE20)
    s = run_benchmark(items, RunConfig(models=["extractive"], modes=["rag", "gold"], limit=6), services,
                      run_id="rag", engine=eng)
    assert s.skipped_no_doc == 0 and s.answers == 12
    assert s.retrieval_hit_at_k["local/extractive"] is not None
    rag = [a for a in answers("rag", eng) if a.mode == "rag"]
    assert all(a.contexts and a.contexts[0].page_start for a in rag)
    assert all(a.metrics["retrieval_hit"].value in (0.0, 1.0) for a in rag)
    # the baseline gives closed questions no verdict (quotes only): counted apart, never scored wrong, not compared
    n_closed = sum(it.question_type == "closed" for it in items[:6])
    assert n_closed and s.no_verdict == 2 * n_closed and s.scores["local/extractive"]["gold"].no_verdict == n_closed
    assert asdict(s.comparison) == {"items": 6 - n_closed, "left_out": n_closed,
                                    "reasons": {"a model gave no verdict (quotes only), so nothing to compare": n_closed}}
    assert s.scores["local/extractive"]["gold"].n_closed == 0
    assert s.manifest is not None
    assert s.manifest.documents[0].doc_id == sample_doc.doc_id and s.manifest.documents[0].sha256
    # the reference-free scores, each its own entry with n and an interval, beside (not in) the correctness
    free = s.reference_free["local/extractive"]
    assert set(free["rag"]) == {"faithfulness_offline", "citation_precision_offline", "context_precision",
                                "context_recall"}
    assert set(free["gold"]) == {"faithfulness_offline"}  # no retrieval, no [n] markers asked for
    gold_rows = [a for a in answers("rag", eng) if a.mode == "gold"]
    checked = [a.metrics["faithfulness_offline"] for a in gold_rows]
    # the extractive baseline copies sentences of the gold passage: every sentence it states is supported
    assert all(m.value == 1.0 for m in checked if m.status == "ok")
    assert free["gold"]["faithfulness_offline"].n == sum(m.status == "ok" for m in checked) >= 3
    assert free["gold"]["faithfulness_offline"].mean == 1.0
    assert free["rag"]["context_recall"].n == 6 and 0 <= free["rag"]["context_recall"].mean <= 1
    lo, hi = free["rag"]["context_recall"].ci95
    assert lo <= free["rag"]["context_recall"].mean <= hi
    for a in rag:  # context recall by hand: the share of the gold passage's sentences some passage holds
        it = next(i for i in items if i.id == a.item_id)
        sents = gold_sentences(it.context)
        grid = found(sents, [c.text for c in a.contexts])
        want = sum(any(row[i] for row in grid) for i in range(len(sents))) / len(sents)
        assert a.metrics["context_recall"].value == round(want, 4)
    pdf = run_benchmark(items, RunConfig(models=["extractive"], modes=["pdf"], limit=2), services, run_id="pdf",
                        engine=eng)
    faith = [a.metrics["faithfulness_offline"] for a in answers("pdf", eng)]
    assert len(faith) == 2 and all(m.details["marks"][0]["page"].startswith("p. ") for m in faith
                                   if m.status == "ok")
    # the extractive baseline copies sentences of the pages it was given: supported, against those pages
    assert all(m.value == 1.0 for m in faith if m.status == "ok")
    assert pdf.reference_free["local/extractive"]["pdf"]["faithfulness_offline"].n == sum(
        m.status == "ok" for m in faith) >= 1
    df = report.answers_frame("rag", eng)
    assert {"support_verdict", "support_summary", "support_marks"} <= set(df.columns)
    assert any(m.startswith("✓ supported") for m in df[df["mode"] == "gold"]["support_marks"])
    # an item whose document is not indexed runs in none/gold only, and is counted
    for it in items:
        it.doc = "not-indexed-eis"
    s2 = run_benchmark(items, RunConfig(models=["extractive"], modes=["rag", "gold"], limit=3), services,
                       run_id="nodoc", engine=eng)
    assert s2.skipped_no_doc == 3 and s2.answers == 3
    s3 = summarize("nodoc", eng)
    gold3 = s3.scores["local/extractive"]["gold"]
    assert s3.scores["local/extractive"]["rag"].n == 0 and gold3.n + gold3.no_verdict == 3
    # comparisons across modes leave those items out of every mode, and say why
    assert asdict(s3.comparison) == {"items": 0, "left_out": 3,
                                     "reasons": {"document not indexed, so no pdf/rag answer": 3}}


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


def _judge_env(monkeypatch, srv, models="gpt-judge"):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-judge-key-000000")
    monkeypatch.setenv("OPENAI_BASE_URL", srv.url + "/v1")
    monkeypatch.setenv("OPENAI_MODEL", models)
    registry.reset()


def ragas_judge(body):
    """A judge that answers each RAGAS step in shape, whatever order concurrent calls arrive in."""
    prompt = body["messages"][-1]["content"]
    if '"TP"' in prompt:
        return '{"TP": [{"statement": "The site is at Fort Drum.", "reason": "same"}], "FP": [], "FN": []}'
    return '{"statements": ["The site is at Fort Drum."]}'


RAGAS_OK = ("ok", ragas_judge)


def test_judge_failures_are_counted_then_retried_on_resume(tmp_path, monkeypatch):
    """A judge (the real openai client against a local server) that returns no JSON: each open item is
    recorded as judge_failed, counted as an answer, left out of the averages, and re-scored on resume."""
    from tests.fake_llm_server import FakeLLMServer

    with FakeLLMServer() as srv:
        srv.default = ("ok", "I cannot classify these statements.")
        _judge_env(monkeypatch, srv)
        eng = get_engine(f"sqlite:///{tmp_path / 'j.db'}")
        items, _ = load_items(config.SAMPLE20)
        chosen = [it for it in items if it.question_type != "closed"][:3] + [items[0]]
        s = run_benchmark(chosen, RunConfig(models=["extractive"], modes=["gold"], judge="openai"), None,
                          run_id="judge", engine=eng)
        assert s.answers == 4 and s.failures == 0 and s.judge_failures == 3 and s.judge == "openai/gpt-judge"
        assert s.metric == "answer_correctness"
        cell = s.scores["local/extractive"]["gold"]
        assert cell.open_correctness is None and cell.n_open == 0 and cell.judge_failures == 3
        # the baseline's closed answer is quotes only: no verdict, not scored, even when its judge scores are retried
        assert cell.closed_accuracy is None and cell.n_closed == 0 and cell.no_verdict == 1
        assert cell.metric == "ragas_answer_correctness"
        failed = [a for a in answers("judge", eng) if "answer_correctness" in a.metrics
                  and a.metrics["answer_correctness"].status == "judge_failed"]
        assert len(failed) == 3 and all(a.metrics["answer_correctness"].value is None for a in failed)
        srv.default = RAGAS_OK
        s2 = run_benchmark(None, None, None, run_id="judge", engine=eng)
    registry.reset()
    assert s2.judge_failures == 0 and s2.scores["local/extractive"]["gold"].n_open == 3
    # 1 TP, no FP/FN: factual F1 = 1, so each score is 0.75 + 0.25 × semantic similarity
    vals = [a.metrics["answer_correctness"].value for a in answers("judge", eng) if "answer_correctness" in a.metrics]
    assert len(vals) == 3 and all(0.75 <= v <= 1.0 for v in vals)


def test_rescore_keeps_the_baselines_quotes_only_answers_unscored(tmp_path):
    """The extractive baseline answers closed questions with quotes only: no verdict by design, never scored. Scoring
    the run again must not read a yes or no into its quotes (it once did: a quote turned into a "correct" no)."""
    from lib.core.verdict import QUOTES_ONLY

    eng = get_engine(f"sqlite:///{tmp_path / 'q.db'}")
    items, _ = load_items(config.SAMPLE_QUESTIONS)
    closed = [it for it in items if it.question_type == "closed"][:12]

    def stored() -> dict[tuple[str, str], tuple]:
        return {(a.item_id, a.mode): (a.verdict, a.verdict_source, a.metrics["closed_accuracy"].status,
                                      a.metrics["closed_accuracy"].value) for a in answers("q", eng)}

    s = run_benchmark(closed, RunConfig(models=["extractive"], modes=["none", "gold"]), None, run_id="q", engine=eng)
    before = stored()
    assert s.no_verdict == 2 * len(closed) == 24
    assert {(v, status, value) for v, _, status, value in before.values()} == {(QUOTES_ONLY, "no_verdict", None)}
    assert rescore("q", engine=eng) == Rescored(rescored=2 * len(closed))
    assert stored() == before
    again = summarize("q", eng)
    assert (again.no_verdict, again.unclear) == (2 * len(closed), 0)


def test_a_model_that_cannot_judge_is_refused_as_a_benchmarks_judge(tmp_path):
    """The extractive baseline gives no verdict: as a run's judge, in a rescore, or on the command line it is
    refused in words before any answer is touched, and no page offers it (the pickers ask the model)."""
    eng = get_engine(f"sqlite:///{tmp_path / 'j.db'}")
    items, _ = load_items(config.SAMPLE20)
    with pytest.raises(UserError, match="cannot judge"):
        run_benchmark(items[:1], RunConfig(models=["extractive"], modes=["gold"], judge="extractive"), None,
                      run_id="j", engine=eng)
    run_benchmark(items[:2], RunConfig(models=["extractive"], modes=["gold"]), None, run_id="k", engine=eng)
    before = [a.as_dict() for a in answers("k", eng)]
    with pytest.raises(UserError, match="cannot judge"):
        rescore("k", judge="extractive", engine=eng)
    assert [a.as_dict() for a in answers("k", eng)] == before and summarize("k", eng).judge.startswith("none")
    assert registry.EXTRACTIVE not in registry.judge_choices() and registry.SMOLLM2 in registry.judge_choices()
    out = subprocess.run([sys.executable, "-m", "lib", "bench", "--questions", str(config.SAMPLE20), "--models",
                          "extractive", "--modes", "gold", "--limit", "1", "--judge", "extractive"], cwd=ROOT,
                         env=dict(os.environ, NEPAQA_HOME=str(tmp_path / "home")), capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 2 and out.stderr.startswith("error: ") and "cannot judge" in out.stderr, out.stderr


def test_rescore_with_a_judge_does_not_generate_again(tmp_path, monkeypatch, flaky):
    """Rescore swaps the proxy for RAGAS answer correctness without calling the answering model again."""
    from tests.fake_llm_server import FakeLLMServer

    flaky.fail = False
    eng = get_engine(f"sqlite:///{tmp_path / 'r.db'}")
    items, _ = load_items(config.SAMPLE20)
    chosen = [it for it in items if it.question_type != "closed"][:2]
    s1 = run_benchmark(chosen, RunConfig(models=["test/flaky"], modes=["none", "gold"]), None, run_id="rs", engine=eng)
    assert flaky.calls == 4 and s1.metric == "token_f1_proxy"
    with FakeLLMServer() as srv:
        _judge_env(monkeypatch, srv)
        registry.register(flaky)
        srv.default = RAGAS_OK
        counts = rescore("rs", "openai", engine=eng)
        assert len(srv.requests) == 12  # 3 judge calls per answer, 4 answers
    assert counts == Rescored(rescored=4) and flaky.calls == 4  # no answer generated again
    s2 = summarize("rs", eng)
    assert s2.judge == "openai/gpt-judge" and s2.metric == "answer_correctness"
    assert s2.scores["test/flaky"]["gold"].n_open == 2
    assert s2.manifest is not None and s2.manifest.judge is not None
    assert s2.manifest.judge["id"] == "openai/gpt-judge" and s2.manifest.rescored[0]["judge"] == "openai/gpt-judge"
    registry.reset()


def test_resume_with_a_changed_configuration_is_refused(tmp_path, monkeypatch, flaky):
    from lib.core.errors import UserError
    from lib.models import prompts

    flaky.fail = False
    eng = get_engine(f"sqlite:///{tmp_path / 'm.db'}")
    items, _ = load_items(config.SAMPLE20)
    run_benchmark(items[:2], RunConfig(models=["test/flaky"], modes=["none"]), None, run_id="man", engine=eng)
    monkeypatch.setattr(prompts, "OPEN_NO_CONTEXT", prompts.OPEN_NO_CONTEXT + " Be brief.")
    with pytest.raises(UserError, match=r"another configuration.*prompts\.open_no_context"):
        run_benchmark(None, None, None, run_id="man", engine=eng)
    monkeypatch.undo()
    registry.register(flaky)
    flaky.options = type(flaky.options)(temperature=0.7, context_window=flaky.options.context_window)
    with pytest.raises(UserError, match=r"models\[0\]\.options\.temperature: 0\.0 → 0\.7"):
        run_benchmark(None, None, None, run_id="man", engine=eng)


def test_two_openai_models_side_by_side_and_cli_contract(tmp_path, monkeypatch):
    """OPENAI_MODEL lists two models: both run, results are keyed by each concrete id, each request names its
    model; a resume after the context setting changed is refused with exit 2; unknown models exit 2."""
    from tests.fake_llm_server import FakeLLMServer

    home = tmp_path / "home"
    with FakeLLMServer() as srv:
        srv.default = ("ok", "Yes, the Army consulted the U.S. Fish and Wildlife Service.")
        env = {**os.environ, "NEPAQA_HOME": str(home), "OPENAI_API_KEY": "sk-test-two-models-000000",
               "OPENAI_BASE_URL": srv.url + "/v1", "OPENAI_MODEL": "gpt-a, gpt-b"}
        models = json.loads(subprocess.run([sys.executable, "-m", "lib", "models"], cwd=ROOT, env=env,
                                           capture_output=True, text=True).stdout)
        ids = [m["id"] for m in models]
        assert "openai/gpt-a" in ids and "openai/gpt-b" in ids and "openai" not in ids and "smollm2" not in ids
        cmd = [sys.executable, "-m", "lib", "bench", "--questions", str(config.SAMPLE20), "--models",
               "openai/gpt-a,openai/gpt-b", "--modes", "none,gold", "--limit", "3", "--run-id", "two"]
        out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
        summary = json.loads(out.stdout)
        assert set(summary["scores"]) == {"openai/gpt-a", "openai/gpt-b"}
        sent = {r["body"]["model"] for r in srv.requests}
        assert sent == {"gpt-a", "gpt-b"} and all(r["body"]["temperature"] == 0 for r in srv.requests)
        changed = subprocess.run([sys.executable, "-m", "lib", "bench", "--run-id", "two"], cwd=ROOT,
                                 env={**env, "OPENAI_CONTEXT": "8000"}, capture_output=True, text=True, timeout=300)
        assert changed.returncode == 2 and changed.stderr.startswith("error: Run 'two' was made with another")
        assert "context_window: 128000 → 8000" in changed.stderr
        unknown = subprocess.run(cmd[:7] + ["openai/gpt-c"] + cmd[8:10], cwd=ROOT, env=env, capture_output=True,
                                 text=True, timeout=300)
        assert unknown.returncode == 2 and "not configured" in unknown.stderr and "OPENAI_MODEL" in unknown.stderr


def test_generate_with_a_real_client_counts_and_queues(tmp_path, monkeypatch):
    """Generation through the openai client against a local server: generated → well-formed → kept."""
    from lib.evaluation.benchmark.generate import generate
    from lib.review import annotations as ann
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
    eng = get_engine(f"sqlite:///{tmp_path / 'g.db'}")
    assert ann.add_items(rep.items, "generated:test", eng) == 1
    assert ann.items(source="generated:test", engine=eng)[0].question == "Would wetlands be avoided?"


def test_rescore_reads_text_verdicts_again_and_a_resume_after_rescore_is_accepted(tmp_path, monkeypatch, flaky):
    """A parser fixed after the run: rescore re-reads verdicts that came from text (without new answers), and
    the run resumes afterwards (its manifest was updated, not left to refuse the next resume)."""
    from lib.qa import ask as ask_lib
    from tests.fake_llm_server import FakeLLMServer

    flaky.fail = False
    flaky.reply = "The right-of-way crosses two wetlands. Therefore, the answer is: No."
    eng = get_engine(f"sqlite:///{tmp_path / 'p.db'}")
    items, _ = load_items(config.SAMPLE20)
    closed = [it for it in items if it.question_type == "closed"]
    truth = {it.id: it.answer.lower() for it in closed}
    monkeypatch.setattr(ask_lib, "parse_verdict", lambda text: "yes")  # an old, wrong parser
    run_benchmark(closed, RunConfig(models=["test/flaky"], modes=["none"]), None, run_id="fix", engine=eng)
    monkeypatch.undo()
    before = {a.item_id: a for a in answers("fix", eng)}
    assert all(a.verdict == "yes" and a.verdict_source == "text" for a in before.values())
    calls = flaky.calls
    rescore("fix", engine=eng)
    after = {a.item_id: a for a in answers("fix", eng)}
    assert flaky.calls == calls
    for item_id, a in after.items():
        assert a.verdict == "no"
        assert a.metrics["closed_accuracy"].value == (1.0 if truth[item_id] == "no" else 0.0)
    # rescore with a judge, then resume: accepted (nothing left to do, nothing generated)
    with FakeLLMServer() as srv:
        _judge_env(monkeypatch, srv)
        registry.register(flaky)
        rescore("fix", "openai", engine=eng)
        s = run_benchmark(None, None, None, run_id="fix", engine=eng)
    assert s.answers == len(closed) and flaky.calls == calls
    registry.reset()


def test_cli_refuses_flags_that_differ_from_the_run_being_resumed(tmp_path):
    home = tmp_path / "home"
    env = {**os.environ, "NEPAQA_HOME": str(home)}
    base = [sys.executable, "-m", "lib", "bench", "--questions", str(config.SAMPLE20), "--models", "extractive",
            "--modes", "none", "--limit", "2", "--run-id", "flags"]
    assert subprocess.run(base, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300).returncode == 0
    same = subprocess.run(base, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert same.returncode == 0, same.stderr  # the same flags (aliases resolved) resume quietly
    other = subprocess.run(base[:9] + ["none,gold"] + base[10:], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=300)
    assert other.returncode == 2 and "--modes ['none', 'gold'] (the run has ['none'])" in other.stderr


def test_holm_adjusts_the_family_of_paired_tests():
    from statsmodels.stats.multitest import multipletests

    from lib.evaluation.benchmark.report import PairedTest, holm

    tests = [PairedTest("open", ("m", "rag"), ("m", "gold"), "paired bootstrap", 10, 0.1, p, False)
             for p in (0.01, 0.02, 0.04, 0.3)]
    out = holm(tests)
    expected = multipletests([0.01, 0.02, 0.04, 0.3], method="holm")[1]
    assert [t.p_adjusted for t in out] == [round(float(p), 4) for p in expected]
    assert [t.within_noise for t in out] == [False, True, True, True]  # 0.04 * 2 = 0.08 is noise once adjusted


def test_semantic_scores_of_an_older_embedder_are_never_mixed(tmp_path, flaky):
    """Semantic scores come from the exact model (torch's vectors). A run scored before that, with the int8
    ingest model, is not partly re-scored ("only retry" would mix the two in one table); re-scoring every answer
    is allowed and recorded in its manifest."""
    from lib.core.errors import UserError
    from lib.models.embedding import Embedder
    from lib.qa import manifest

    flaky.fail = False
    eng = get_engine(f"sqlite:///{tmp_path / 's.db'}")
    items, _ = load_items(config.SAMPLE20)
    chosen = [it for it in items if it.question_type != "closed"][:2]
    run_benchmark(chosen, RunConfig(models=["test/flaky"], modes=["gold"]), None, run_id="old", engine=eng)
    m = manifest.load("old", eng)
    assert m is not None and m.semantic_embedder == "all-MiniLM-L6-v2 (onnx)"
    emb = Embedder()
    for a in answers("old", eng):
        truth = next(it.answer for it in chosen if it.id == a.item_id)
        v = emb.embed([a.answer, truth])
        assert a.metrics["semantic_similarity"].value == pytest.approx(max(0.0, float(v[0] @ v[1])), abs=1e-3)
    # as a run made before this change recorded it: no semantic embedder, the int8 ingest model
    m.semantic_embedder = None
    m.embedder = "all-MiniLM-L6-v2 (onnx-int8)"
    manifest.save("old", "bench", m, eng)
    with pytest.raises(UserError, match=r"made with all-MiniLM-L6-v2 \(onnx-int8\).*all-MiniLM-L6-v2 \(onnx\)"):
        rescore("old", engine=eng, only_retry=True)
    assert rescore("old", engine=eng) == Rescored(rescored=2)
    m = manifest.load("old", eng)
    assert m is not None and m.semantic_embedder == "all-MiniLM-L6-v2 (onnx)" and m.rescored[-1]["semantic_embedder"]
    assert rescore("old", engine=eng, only_retry=True) == Rescored(rescored=0)

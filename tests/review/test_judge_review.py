"""A judge model labels review items through the real OpenAI client (against the loopback server) and is
compared with the experts on fixed labels whose κ and percent agreement are computed by hand here."""
import json
import threading

import pytest
from sklearn.metrics import cohen_kappa_score
from sqlalchemy import select

from lib.core.errors import UserError
from lib.core.stats.agreement import agreement_report, two_rater_agreement
from lib.evaluation.benchmark.dataset import Item
from lib.models import registry
from lib.models.extractive import ExtractiveProvider
from lib.review import annotations as ann
from lib.review import judge_review as jr
from lib.storage import tables
from lib.storage.engine import get_engine
from tests.fake_llm_server import openai_loopback

KEY = "sk-test-JUDGESECRETKEY1234567890"


def make_items(n):
    return [Item(id=f"I{i}", question_type="recall", question=f"What is fact {i}?", answer=f"Fact {i}.",
                 context=f"The EIS states fact {i}.", doc="d", page_number=i + 1) for i in range(n)]


def reply(tc="yes", ac="yes", ps="yes"):
    return json.dumps({"type_correct": tc, "answer_correct": ac, "proof_supports": ps})


@pytest.fixture
def engine(tmp_path):
    return get_engine(f"sqlite:///{tmp_path / 'judge.db'}")


@pytest.fixture
def server(monkeypatch):
    with openai_loopback(monkeypatch, KEY, "gpt-judge") as srv:
        yield srv


def stored(engine):
    t = tables.judge_labels
    with engine.connect() as c:
        return [dict(r) for r in c.execute(select(t).order_by(t.c.item_id, t.c.label)).mappings()]


def test_labels_stored_per_item_and_resumable(server, engine):
    ann.add_items(make_items(3), "set", engine)
    judge = registry.get("openai").id
    server.script.extend([("ok", reply("yes", "yes", "yes")), ("ok", reply("no", "unsure", "yes")),
                          ("ok", "```json\n" + reply("yes", "no", "no") + "\n```")])
    counts = jr.judge_items("openai", engine=engine, max_workers=1)
    assert counts == jr.JudgedItems(labelled=3, failed=0, skipped=0, cancelled=0)
    rows = stored(engine)
    assert len(rows) == 9 and {r["judge"] for r in rows} == {judge} and {r["status"] for r in rows} == {"ok"}
    got = {(r["item_id"], r["label"]): r["value"] for r in rows}
    assert got[("I1", "type_correct")] == "no" and got[("I1", "answer_correct")] == "unsure"
    assert got[("I2", "answer_correct")] == "no" and got[("I2", "proof_supports")] == "no"
    assert all(r["raw"] and r["error"] is None and r["created_at"] for r in rows)
    # the prompt carries the item and asks for the expert review's labels and values
    body = server.requests[0]["body"]
    prompt = body["messages"][-1]["content"]
    assert "What is fact 0?" in prompt and "The EIS states fact 0." in prompt and "recall" in prompt
    assert all(name in prompt for name in ann.AGREEMENT_LABELS) and "yes|no|unsure" in prompt
    assert body["model"] == "gpt-judge"
    # a second call labels nothing again
    n_requests = len(server.requests)
    assert jr.judge_items("openai", engine=engine) == jr.JudgedItems(labelled=0, failed=0, skipped=3, cancelled=0)
    assert len(server.requests) == n_requests
    # only the named items, and unknown ids are skipped
    ann.add_items(make_items(5), "set", engine)
    server.script.append(("ok", reply()))
    counts = jr.judge_items("openai", item_ids=["I3", "I0", "nope"], engine=engine)
    assert counts == jr.JudgedItems(labelled=1, failed=0, skipped=2, cancelled=0)
    assert jr.done_items(judge, engine) == {"I0", "I1", "I2", "I3"}
    assert jr.judges(engine) == [judge]


def test_malformed_replies_fail_the_item_and_are_retried(server, engine):
    ann.add_items(make_items(5), "set", engine)
    server.script.extend([
        ("ok", reply()),                                       # I0 fine
        ("ok", "I think the answer is correct."),              # I1 not JSON
        ("ok", reply(ac="maybe")),                             # I2 value out of set
        ("ok", json.dumps({"type_correct": "yes"})),          # I3 labels missing
        ("401",),                                              # I4 provider error echoing the key
    ])
    counts = jr.judge_items("openai", engine=engine, max_workers=1)
    assert counts == jr.JudgedItems(labelled=1, failed=4, skipped=0, cancelled=0)
    rows = stored(engine)
    status = {r["item_id"]: r["status"] for r in rows}
    assert status == {"I0": "ok", "I1": "failed", "I2": "failed", "I3": "failed", "I4": "failed"}
    err = {r["item_id"]: r["error"] for r in rows}
    assert "not valid JSON" in err["I1"] and "maybe" in err["I2"] and "missing" in err["I3"]
    assert all(r["value"] is None for r in rows if r["status"] == "failed")
    assert {r["raw"] for r in rows if r["item_id"] == "I1"} == {"I think the answer is correct."}
    assert KEY not in json.dumps(rows, default=str) and err["I4"]
    assert jr.done_items(registry.get("openai").id, engine) == {"I0"}
    # next call retries exactly the failed items; nothing is left failed
    server.script.extend([("ok", reply(ac="no"))] * 4)
    before = len(server.requests)
    counts = jr.judge_items("openai", engine=engine, max_workers=1)
    assert counts == jr.JudgedItems(labelled=4, failed=0, skipped=1, cancelled=0)
    assert len(server.requests) - before == 4
    rows = stored(engine)
    assert len(rows) == 15 and {r["status"] for r in rows} == {"ok"} and all(r["error"] is None for r in rows)
    assert {r["value"] for r in rows if r["label"] == "answer_correct" and r["item_id"] != "I0"} == {"no"}


def test_cancelled_and_non_llm(server, engine):
    ann.add_items(make_items(2), "set", engine)
    stop = threading.Event()
    stop.set()
    assert jr.judge_items("openai", engine=engine, cancel=stop) == jr.JudgedItems(labelled=0, failed=0, skipped=0,
                                                                               cancelled=2)
    assert stored(engine) == [] and not server.requests
    baseline = next(p for p in registry.all_providers() if isinstance(p, ExtractiveProvider))
    with pytest.raises(UserError, match="not a language model"):
        jr.judge_items(baseline.id, engine=engine)


def test_parse_reply():
    assert jr.parse_reply('Here you go: {"type_correct": "Yes", "answer_correct": "UNSURE", '
                          '"proof_supports": " no "} hope it helps') == {
        "type_correct": "yes", "answer_correct": "unsure", "proof_supports": "no"}
    for bad in ("", "yes", "[1, 2]", reply(ps="unsure"), reply(tc=True), "{not json}"):
        with pytest.raises(ValueError):
            jr.parse_reply(bad)


# Fixed labels for items I0..I7 (y = yes, n = no, u = unsure).
JUDGE_AC = "yyynnyny"
ALICE_AC = "yynnnyyy"
BOB_AC = "ynyuny"  # I0..I5 only
EXPAND = {"y": "yes", "n": "no", "u": "unsure"}


def setup_fixed(server, engine):
    ann.add_items(make_items(8), "set", engine)
    for i, v in enumerate(ALICE_AC):
        ann.save_review(f"I{i}", "Alice", {"type_correct": "no" if i == 2 else "yes", "answer_correct": EXPAND[v],
                                           "proof_supports": "yes"}, engine)
    for i, v in enumerate(BOB_AC):
        ann.save_review(f"I{i}", "Bob", {"type_correct": "yes", "answer_correct": EXPAND[v], "proof_supports": "yes"},
                        engine)
    ann.adjudicate("I1", "answer_correct", "yes", engine)
    ann.adjudicate("I2", "answer_correct", "no", engine)  # I3 (no vs unsure) stays disputed
    server.script.extend([("ok", reply("yes", EXPAND[v], "yes")) for v in JUDGE_AC])
    counts = jr.judge_items("openai", engine=engine, max_workers=1)
    assert counts.labelled == 8


def test_kappa_and_percent_against_each_expert(server, engine):
    setup_fixed(server, engine)
    rep = jr.judge_agreement(registry.get("openai").id, engine)
    assert set(rep) == set(ann.AGREEMENT_LABELS)
    ac = rep["answer_correct"]
    assert ac.n_judged == 8 and set(ac.vs_experts) == {"Alice", "Bob"}  # the adjudicator is no expert
    alice, bob = ac.vs_experts["Alice"], ac.vs_experts["Bob"]
    # Alice, 8 items: agree on 6 → 75%. Judge yes 5/no 3, Alice yes 5/no 3: pe = (25 + 9)/64,
    # κ = (48/64 − 34/64)/(1 − 34/64) = 14/30 = 7/15.
    assert (alice.n, alice.agree, alice.percent) == (8, 6, 75.0)
    assert alice.kappa == pytest.approx(7 / 15, abs=1e-4)
    # Bob, I0..I5: agree on 4 → 66.67%. Judge y4 n2 u0, Bob y3 n2 u1: pe = (12 + 4 + 0)/36,
    # κ = (24/36 − 16/36)/(20/36) = 0.4.
    assert (bob.n, bob.agree) == (6, 4) and bob.percent == pytest.approx(66.67, abs=0.01)
    assert bob.kappa == pytest.approx(0.4, abs=1e-4)
    yj = [EXPAND[v] for v in JUDGE_AC]
    assert alice.kappa == pytest.approx(cohen_kappa_score(yj, [EXPAND[v] for v in ALICE_AC]), abs=1e-4)
    assert bob.kappa == pytest.approx(cohen_kappa_score(yj[:6], [EXPAND[v] for v in BOB_AC]), abs=1e-4)
    assert alice.note == bob.note == "small sample (n < 10)"
    # type_correct: the judge always says yes, Alice once no → 87.5%, κ exactly 0 (no better than chance)
    tc = rep["type_correct"].vs_experts["Alice"]
    assert (tc.n, tc.percent, tc.kappa) == (8, 87.5, 0.0)
    # proof_supports: everyone always yes → 100% but κ undefined, with the reason
    ps = rep["proof_supports"].vs_experts["Bob"]
    assert (ps.n, ps.percent, ps.kappa) == (6, 100.0, None) and "undefined" in ps.note
    # the alias resolves to the stored concrete id
    assert jr.judge_agreement("openai", engine) == rep
    sentence = jr.sentence("J", "Alice", alice)
    assert sentence.startswith("On 8 items, the judge J agreed with Alice on 75% (κ 0.47).") and "Small sample" in sentence


def test_kappa_against_adjudicated(server, engine):
    setup_fixed(server, engine)
    r = jr.judge_agreement(registry.get("openai").id, engine)["answer_correct"].vs_adjudicated
    # final labels: I0 y, I1 y (adjudicated), I2 n (adjudicated), I3 disputed (left out), I4 n, I5 y,
    # I6 y and I7 y (Alice alone). The judge agrees on I0 I1 I4 I5 I7 → 5/7. Judge y5 n2, final y5 n2:
    # pe = 29/49, κ = (35 − 29)/(49 − 29) = 0.3.
    assert (r.n, r.agree) == (7, 5) and r.percent == pytest.approx(71.43, abs=0.01)
    assert r.kappa == pytest.approx(0.3, abs=1e-4)
    final = {x.item_id: x.value for x in ann.adjudicated_set(engine) if x.label == "answer_correct" and x.value}
    items = sorted(final)
    judge = dict(zip([f"I{i}" for i in range(8)], [EXPAND[v] for v in JUDGE_AC], strict=True))
    assert r.kappa == pytest.approx(cohen_kappa_score([judge[i] for i in items], [final[i] for i in items]), abs=1e-4)


def test_no_shared_items():
    r = two_rater_agreement({"I1": "yes"}, {"I2": "no"})
    assert (r.n, r.percent, r.kappa) == (0, None, None) and r.note
    assert "no item" in jr.sentence("J", "Alice", r)


def test_experts_agreement_is_untouched_by_judge_labels(server, engine):
    ann.add_items(make_items(8), "set", engine)
    for i, v in enumerate(ALICE_AC):
        ann.save_review(f"I{i}", "Alice", {"type_correct": "yes", "answer_correct": EXPAND[v], "proof_supports": "yes"},
                        engine)
    for i, v in enumerate(BOB_AC):
        ann.save_review(f"I{i}", "Bob", {"type_correct": "yes", "answer_correct": EXPAND[v], "proof_supports": "no"},
                        engine)
    before = (agreement_report(ann.labels(engine), ann.AGREEMENT_LABELS), ann.disagreements(engine=engine),
              ann.adjudicated_set(engine), ann.labels(engine, include_adjudicated=True))
    server.script.extend([("ok", reply("no", "no", "no"))] * 8)
    assert jr.judge_items("openai", engine=engine).labelled == 8
    after = (agreement_report(ann.labels(engine), ann.AGREEMENT_LABELS), ann.disagreements(engine=engine),
             ann.adjudicated_set(engine), ann.labels(engine, include_adjudicated=True))
    assert after == before
    judge = registry.get("openai").id
    assert judge not in {lb.annotator for lb in after[3]}
    assert ann.done_items(judge, [f"I{i}" for i in range(8)], engine) == set()

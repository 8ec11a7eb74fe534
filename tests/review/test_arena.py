"""The blind arena (issue 14): pairs from stored answers, sampling, votes and their CSV, experts' agreement, and the
judge's both-order rule against the loopback OpenAI server."""
import json
import subprocess
import sys
from dataclasses import asdict

import pytest
from sqlalchemy import insert, select

from lib.core.errors import UserError
from lib.core.stats.bradley_terry import ratings, win_matrix
from lib.evaluation.benchmark.dataset import Item
from lib.evaluation.benchmark.runs import RunConfig, create_run
from lib.models import registry
from lib.qa.context_passage import ContextPassage
from lib.review import arena, arena_csv
from lib.review import arena_judge as aj
from lib.review.arena_csv import read_votes_csv
from lib.storage import tables
from lib.storage.engine import get_engine
from tests.conftest import ROOT
from tests.fake_llm_server import openai_loopback

KEY = "sk-test-ARENAJUDGESECRET1234567890"
M1, M2 = "local/smollm2-135m", "local/extractive"


@pytest.fixture
def engine(tmp_path):
    return get_engine(f"sqlite:///{tmp_path / 'arena.db'}")


def make_run(engine, n_items=4, fail=(("I3", M2, "gold"),)):
    """A benchmark run: n items, two models × RAG and gold, every answer stored (one failed)."""
    items = [Item(id=f"I{i}", question_type="recall", question=f"What is fact {i}?", answer=f"Fact {i}.",
                  context=f"The EIS states fact {i}.", doc="d", page_number=i + 1) for i in range(n_items)]
    run_id = create_run(items, RunConfig(models=[M1, M2], modes=["rag", "gold"]), engine=engine)
    rows = []
    for it in items:
        for model in (M1, M2):
            for mode in ("rag", "gold"):
                failed = (it.id, model, mode) in fail
                ctx = [{"n": 1, "doc_name": "eis.pdf", "page_start": 3, "page_end": 3, "text": "Passage on p. 3."}] \
                    if mode == "rag" else [{"page_start": None, "page_end": None, "text": it.context}]
                rows.append({"run_id": run_id, "item_id": it.id, "model": model, "mode": mode,
                             "status": "failed" if failed else "ok", "answer": None if failed else
                             f"Reply {[M1, M2].index(model)}{mode[0]} to {it.id}.",
                             "error": "boom" if failed else None,
                             "contexts": json.dumps(ctx)})
    with engine.begin() as c:
        c.execute(insert(tables.bench_answers), rows)
    return run_id


def test_pairs_differ_in_one_thing_and_failures_are_counted(engine):
    run_id = make_run(engine)
    aid = arena.create_arena(f"bench:{run_id}", engine=engine)
    info = arena.get_arena(aid, engine)
    pairs = arena.arena_pairs(info, engine)
    # per item: two models in RAG, two in gold, each model in its two modes; no model-and-mode diagonal.
    # I3 lost M2·gold, so its two pairs with it are gone: 4 × 4 − 2
    assert len(pairs) == 14
    for x, y in pairs:
        assert x.item_key == y.item_key and ((x.model == y.model) != (x.mode == y.mode))
    summary = arena.arena_summary(info, engine)
    assert summary.left_out == {(M2, "gold"): 1} and summary.n_questions == 4
    with pytest.raises(UserError, match="no pair"):
        arena.create_arena(f"bench:{run_id}", systems=[(M1, "rag"), (M2, "gold")], engine=engine)
    with pytest.raises(UserError, match="not in the store"):
        arena.create_arena("bench:nope", engine=engine)


def test_sampling_covers_every_system_pair_first(engine):
    aid = arena.create_arena(f"bench:{make_run(engine)}", engine=engine)
    seen = []
    for _ in range(4):
        p = arena.next_pair(aid, "Ada", engine)
        seen.append(tuple(sorted((p.left.system, p.right.system))))
        arena.cast_vote(aid, "Ada", p, "left", engine=engine)
    assert len(set(seen)) == 4, seen  # the four system pairs, one vote each, before any gets a second


def test_ties_in_vote_count_go_to_the_widest_interval(engine):
    run_id = make_run(engine, fail=())
    aid = arena.create_arena(f"bench:{run_id}", systems=[(M1, "rag"), (M2, "rag"), (M1, "gold")], engine=engine)
    pairs = arena.arena_pairs(arena.get_arena(aid, engine), engine)
    by_sys = {}
    for x, y in pairs:
        by_sys.setdefault(frozenset((x.system, y.system)), []).append((x, y))
    models_rag = by_sys[frozenset(((M1, "rag"), (M2, "rag")))]
    modes_m1 = by_sys[frozenset(((M1, "rag"), (M1, "gold")))]

    def vote(x, y, winner_first, who):
        pair = arena.Pair(arena.pair_key(x.answer_id, y.answer_id), x.item_key, x.question, x, y)
        arena.cast_vote(aid, who, pair, "left" if winner_first else "right", engine=engine)

    # two votes each: the models split 1–1 (widest interval), the modes 2–0 for RAG
    vote(*models_rag[0], True, "Ada")
    vote(*models_rag[1], False, "Ada")
    vote(*modes_m1[0], True, "Ada")
    vote(*modes_m1[1], True, "Ada")
    p = arena.next_pair(aid, "Ben", engine)
    assert {p.left.system, p.right.system} == {(M1, "rag"), (M2, "rag")}


def test_min_experts_brings_others_pairs_first_and_sides_are_stable(engine):
    aid = arena.create_arena(f"bench:{make_run(engine)}", min_experts=2, engine=engine)
    ada = []
    for _ in range(3):
        p = arena.next_pair(aid, "Ada", engine)
        ada.append(p.pair_key)
        arena.cast_vote(aid, "Ada", p, "tie", engine=engine)
    ben = []
    for _ in range(3):
        p = arena.next_pair(aid, "Ben", engine)
        again = arena.next_pair(aid, "Ben", engine)
        assert (again.left.answer_id, again.right.answer_id) == (p.left.answer_id, p.right.answer_id)  # no flicker
        ben.append(p.pair_key)
        arena.cast_vote(aid, "Ben", p, "tie", engine=engine)
    assert sorted(ben) == sorted(ada)
    # over many (expert, pair) draws both sides occur about equally
    lefts = sum(arena._hash("side", f"expert{i}", pk) % 2 for i in range(50) for pk in ada)
    assert 50 <= lefts <= 100


def test_a_vote_stores_who_what_where_and_how_long(engine):
    aid = arena.create_arena(f"bench:{make_run(engine)}", engine=engine)
    p = arena.next_pair(aid, "Ada Expert", engine)
    arena.cast_vote(aid, "Ada Expert", p, "right", "B cites the page", 12.345, engine=engine)
    arena.cast_vote(aid, "Ada Expert", p, "both_bad", "on reflection, neither", 3.0, engine=engine)  # replaces
    rows = arena.votes(aid, engine)
    assert len(rows) == 1
    r = rows[0]
    assert (r.annotator, r.left_answer, r.right_answer, r.vote, r.reason, r.seconds) == (
        "Ada Expert", p.left.answer_id, p.right.answer_id, "both_bad", "on reflection, neither", 3.0)
    assert r.item_key == p.item_key and (r.left_model, r.left_mode) == p.left.system
    with pytest.raises(UserError, match="one of"):
        arena.cast_vote(aid, "Ada Expert", p, "maybe", engine=engine)
    with pytest.raises(UserError):
        arena.cast_vote(aid, M1, p, "left", engine=engine)  # a model's name is not an expert's


def test_oriented_votes_agree_across_sides(engine):
    aid = arena.create_arena(f"bench:{make_run(engine)}", engine=engine)
    p = arena.next_pair(aid, "Ada", engine)
    swapped = arena.Pair(p.pair_key, p.item_key, p.question, p.right, p.left)
    arena.cast_vote(aid, "Ada", p, "left", engine=engine)  # Ada saw x on the left and chose it
    arena.cast_vote(aid, "Ben", swapped, "right", engine=engine)  # Ben saw x on the right and chose it
    arena.cast_vote(aid, "Cy", swapped, "left", engine=engine)  # Cy chose the other
    rows = arena.votes(aid, engine)
    o = {r.annotator: arena.oriented(r) for r in rows}
    assert o["Ada"] == o["Ben"] != o["Cy"]
    ag = arena.expert_agreement(rows)
    # one pair, three experts: of the 3 expert pairs only Ada–Ben agree
    assert ag.n_pairs == 1 and ag.n_experts == 3 and ag.percent == pytest.approx(33.3)


def test_agreement_by_hand(engine):
    aid = arena.create_arena(f"bench:{make_run(engine, fail=())}", engine=engine)
    pairs = arena.arena_pairs(arena.get_arena(aid, engine), engine)[:4]
    ada = ["left", "left", "right", "tie"]
    ben = ["left", "right", "right", "tie"]  # agrees on 3 of 4
    for (x, y), a, b in zip(pairs, ada, ben, strict=True):
        pair = arena.Pair(arena.pair_key(x.answer_id, y.answer_id), x.item_key, x.question, x, y)
        arena.cast_vote(aid, "Ada", pair, a, engine=engine)
        arena.cast_vote(aid, "Ben", pair, b, engine=engine)
    ag = arena.expert_agreement(arena.votes(aid, engine))
    assert ag.n_pairs == 4 and ag.percent == 75.0
    assert ag.cohen["Ada × Ben"].n == 4 and ag.percent_ci95[0] < 75 < ag.percent_ci95[1]
    # Fleiss' κ by hand: per pair the counts of (first, second, tie) are (2,0,0), (1,1,0), (0,2,0), (0,0,2);
    # P̄ = (1 + 0 + 1 + 1) / 4 = 0.75; category shares 3/8, 3/8, 2/8 give P_e = 22/64; κ = (0.75 − 22/64) / (1 − 22/64)
    assert (ag.fleiss_n, ag.fleiss_m) == (4, 2)
    assert ag.fleiss == pytest.approx((0.75 - 22 / 64) / (1 - 22 / 64), abs=1e-4)
    # Krippendorff's α (nominal) by hand: 8 values, o = observed disagreement, e = expected
    # categories over the 8 values: first 3+... computed with the formula α = 1 − D_o / D_e
    x, y = pairs[0]
    first = arena.pair_key(x.answer_id, y.answer_id).split("|")[0]
    vals = [[arena.oriented(r) for r in arena.votes(aid, engine) if r.pair_key == arena.pair_key(
        a.answer_id, b.answer_id)] for a, b in pairs]
    assert first and all(len(v) == 2 for v in vals)
    n = 8
    from collections import Counter

    counts = Counter(v for pv in vals for v in pv)
    d_o = sum(2 * (pv[0] != pv[1]) for pv in vals) / n  # each unit (m=2) contributes its mismatched ordered pairs / (m−1)
    d_e = (n * n - sum(c * c for c in counts.values())) / (n * (n - 1))
    assert ag.alpha == pytest.approx(1 - d_o / d_e, abs=1e-4)


def test_csv_round_trip_and_all_or_nothing(engine, tmp_path):
    run_id = make_run(engine)
    aid = arena.create_arena(f"bench:{run_id}", engine=engine)
    for who, vote in (("Ada", "left"), ("Ben", "right"), ("Ada", "tie"), ("Cy", "both_bad")):
        p = arena.next_pair(aid, who, engine)
        arena.cast_vote(aid, who, p, vote, "=HYPERLINK(\"http://x\")" if who == "Ben" else "", 4.5, engine=engine)
    text = arena_csv.votes_csv(aid, engine)
    assert "'=HYPERLINK" in text  # a spreadsheet shows it as text, not a live formula
    other = arena.create_arena(f"bench:{run_id}", name="copy", engine=engine)
    assert arena_csv.import_votes_csv(text, other, engine) == {"new": 4, "replaced": 0, "unchanged": 0}
    assert arena_csv.import_votes_csv(text, other, engine) == {"new": 0, "replaced": 0, "unchanged": 4}
    keep = ("item_key", "pair_key", "annotator", "left_answer", "right_answer", "left_model", "left_mode",
            "right_model", "right_mode", "vote", "reason", "seconds")
    a = sorted(tuple(getattr(r, k) for k in keep) for r in arena.votes(aid, engine))
    b = sorted(tuple(getattr(r, k) for k in keep) for r in arena.votes(other, engine))
    assert a == b and any(r[10] == "=HYPERLINK(\"http://x\")" for r in b)
    assert ratings(arena.rating_votes(arena.votes(aid, engine)), n_bootstrap=50) == \
        ratings(arena.rating_votes(arena.votes(other, engine)), n_bootstrap=50)
    # the same file read by the command line: systems are model · mode
    path = tmp_path / "votes.csv"
    path.write_text(text)
    out = subprocess.run([sys.executable, "-m", "lib", "arena-ratings", str(path), "--bootstrap", "50"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert set(json.loads(out.stdout)["models"]) <= {arena.system_key(m, mo) for m in (M1, M2) for mo in ("rag", "gold")}
    # one bad row: nothing is written, and the row is named
    third = arena.create_arena(f"bench:{run_id}", engine=engine)
    lines = text.splitlines()
    bad = lines[:3] + [lines[3].replace(",tie,", ",maybe,")] + lines[4:]
    assert ",maybe," in bad[3]
    with pytest.raises(UserError, match="row 4"):
        arena_csv.import_votes_csv("\n".join(bad), third, engine)
    assert arena.votes(third, engine) == []
    with pytest.raises(UserError, match="missing: annotator"):
        arena_csv.import_votes_csv("left_answer,right_answer,left_model,left_mode,right_model,right_mode,vote\n", third,
                               engine)
    foreign = text.replace("bench:", "bench:9")  # answers this arena does not hold
    with pytest.raises(UserError, match="not in this arena"):
        arena_csv.import_votes_csv(foreign, third, engine)
    assert arena.votes(third, engine) == []


def test_win_matrix_counts():
    votes = read_votes_csv("left_model,right_model,vote\na,b,left\na,b,right\nb,a,left\na,b,tie\na,b,both_bad\n")
    m = {(r.model, r.opponent): r for r in win_matrix(votes)}
    assert (m[("a", "b")].wins, m[("a", "b")].losses, m[("a", "b")].ties, m[("a", "b")].n) == (1, 2, 2, 5)
    assert m[("a", "b")].win_rate == pytest.approx((1 + 1) / 5)
    assert m[("b", "a")].win_rate == pytest.approx((2 + 1) / 5)


@pytest.fixture
def server(monkeypatch):
    with openai_loopback(monkeypatch, KEY, "gpt-judge") as srv:
        yield srv


def test_parse_reply():
    assert aj.parse_reply('{"better": "A"}') == "A"
    assert aj.parse_reply('```json\n{"better": "both_bad"}\n```') == "both_bad"
    assert aj.parse_reply('"B".') == "B"
    assert aj.parse_reply("tie") == "tie"
    for bad in ("A or B", '{"better": "C"}', '{"winner": "A"}', "", "{not json}", "A better answer is B"):
        with pytest.raises(ValueError):
            aj.parse_reply(bad)


def test_combine_both_orders():
    assert aj.combine("first", "first") == "first"
    assert aj.combine("second", "second") == "second"
    assert aj.combine("first", "second") == "tie"  # flips with the order
    assert aj.combine("first", "tie") == "tie"
    assert aj.combine("both_bad", "both_bad") == "both_bad"
    assert aj.combine("both_bad", "tie") == "tie"


def test_judge_both_orders_against_the_loopback_server(server, engine):
    aid = arena.create_arena(f"bench:{make_run(engine, fail=())}", engine=engine)
    pairs = arena.arena_pairs(arena.get_arena(aid, engine), engine)[:4]
    experts = {"Ada": ["left", "right", "tie", "left"], "Ben": ["left", "left", "tie", "right"]}
    for who, vs in experts.items():
        for (x, y), v in zip(pairs, vs, strict=True):
            arena.cast_vote(aid, who, arena.Pair(arena.pair_key(x.answer_id, y.answer_id), x.item_key, x.question,
                                                 x, y), v, engine=engine)
    # pairs in pending order; each asked first with its first answer as A, then swapped
    server.script.extend([
        ("ok", '{"better": "A"}'), ("ok", '{"better": "B"}'),  # pair 1: the first answer both times → first
        ("ok", '{"better": "A"}'), ("ok", '{"better": "A"}'),  # pair 2: always the A position → flips → tie
        ("ok", '{"better": "tie"}'), ("ok", "tie"),  # pair 3: tie
        ("ok", "A or B"),  # pair 4: unreadable: recorded with the reason, not asked again by itself
    ])
    judge = registry.get("openai").id
    todo = aj.pending(aid, judge, engine)
    assert [p.pair_key for p in todo] == [arena.pair_key(x.answer_id, y.answer_id) for x, y in pairs]
    res = aj.judge_pairs(aid, "openai", engine, max_workers=1)
    assert res == aj.JudgedPairs(judged=3, unreadable=1, failed=0, cancelled=0)
    rows = {r.pair_key: r for r in aj.judge_rows(aid, judge, engine)}
    keys = [arena.pair_key(x.answer_id, y.answer_id) for x, y in pairs]
    assert [rows[k].verdict for k in keys[:3]] == ["first", "tie", "tie"]
    assert (rows[keys[1]].first_order, rows[keys[1]].second_order) == ("first", "second")
    assert rows[keys[3]].status == "unreadable" and rows[keys[3]].verdict is None
    assert rows[keys[3]].error == "it answered “A or B”, not A, B, tie or both_bad"
    # the prompt shows the answers blind: no model name, no mode
    prompts = [r["body"]["messages"][-1]["content"] for r in server.requests]
    assert not any(M1 in p or M2 in p or "SmolLM2" in p for p in prompts)
    assert pairs[0][0].text in prompts[0].split("Answer B")[0] and pairs[0][0].text in prompts[1].split("Answer B")[1]
    # a model at temperature 0 would say the same again: an unreadable pair waits for an explicit retry
    assert aj.pending(aid, judge, engine) == []
    server.script.extend([("echo_key", None)])  # the retry's reply echoes the key: stored redacted
    assert aj.judge_pairs(aid, "openai", engine, max_workers=1, retry_unreadable=True).unreadable == 1
    stored = json.dumps([asdict(r) for r in aj.judge_rows(aid, judge, engine)])
    assert KEY not in stored
    server.script.extend([("500", None)])  # a failed call, by contrast, is asked again next time
    assert aj.judge_pairs(aid, "openai", engine, max_workers=1, retry_unreadable=True).failed == 1
    assert [p.pair_key for p in aj.pending(aid, judge, engine)] == [keys[3]]
    # agreement, per expert vote, on first / second / no preference:
    # pair 1 judge first: Ada first ✓, Ben first ✓; pair 2 judge tie: Ada second ✗, Ben first ✗;
    # pair 3 judge tie: Ada tie ✓, Ben tie ✓  (pair 4 has no verdict)
    r = aj.judge_vs_experts(aid, judge, engine)
    assert r.n_judged == 3 and r.n_flipped == 1 and r.n_changed == 0
    assert (r.n_failed, r.n_unreadable) == (1, 0)
    # per pair against the majority: pair 1 (both first) agrees; pair 2 has no majority; pair 3 (both tie) agrees
    assert (r.vs_majority.n, r.vs_majority.agree, r.no_majority) == (2, 2, 1)
    o = r.overall
    assert o.n == 6 and o.agree == 4 and o.percent == pytest.approx(66.67)
    from sklearn.metrics import cohen_kappa_score

    def cat(pk, v):
        row = next(x for x in arena.votes(aid, engine) if x.pair_key == pk and x.vote == v)
        return arena.oriented(row)
    judge_side = ["first", "first", "no preference", "no preference", "no preference", "no preference"]
    expert_side = ["first", "first", "second", "first", "no preference", "no preference"]
    assert cat(keys[0], "left") == "first"
    assert o.kappa == pytest.approx(cohen_kappa_score(judge_side, expert_side), abs=1e-4)


def test_the_extractive_baseline_cannot_judge(engine):
    aid = arena.create_arena(f"bench:{make_run(engine)}", engine=engine)
    with pytest.raises(UserError, match="not a language model"):
        aj.judge_pairs(aid, M2, engine)


def test_votes_are_in_the_sql_store(engine):
    aid = arena.create_arena(f"bench:{make_run(engine)}", engine=engine)
    arena.cast_vote(aid, "Ada", arena.next_pair(aid, "Ada", engine), "left", engine=engine)
    with engine.connect() as c:
        assert c.execute(select(tables.arena_votes.c.vote)).scalars().all() == ["left"]


def test_postgresql_store(pg_url):
    """The same arena on PostgreSQL: votes (upserted), the CSV round trip, and the judge's table."""
    engine = get_engine(pg_url)
    run_id = make_run(engine)
    aid = arena.create_arena(f"bench:{run_id}", min_experts=2, engine=engine)
    for who in ("Ada", "Ben"):
        for _ in range(3):
            p = arena.next_pair(aid, who, engine)
            arena.cast_vote(aid, who, p, "left", "first try", 2.0, engine=engine)
            arena.cast_vote(aid, who, p, "right", "second thoughts", 2.5, engine=engine)  # replaces
    rows = arena.votes(aid, engine)
    assert len(rows) == 6 and {r.vote for r in rows} == {"right"}
    assert arena.expert_agreement(rows).n_pairs == 3  # Ben was given Ada's pairs first
    other = arena.create_arena(f"bench:{run_id}", engine=engine)
    assert arena_csv.import_votes_csv(arena_csv.votes_csv(aid, engine), other, engine)["new"] == 6
    with engine.begin() as c:
        c.execute(aj._upsert(engine, {"arena_id": aid, "pair_key": rows[0].pair_key, "judge": "j", "status": "failed"}))
        c.execute(aj._upsert(engine, {"arena_id": aid, "pair_key": rows[0].pair_key, "judge": "j", "status": "ok",
                                      "verdict": "tie", "first_order": "first", "second_order": "second"}))
    assert [r.verdict for r in aj.judge_rows(aid, "j", engine)] == ["tie"]
    engine.dispose()


def test_left_out_is_counted_when_the_arena_is_made(engine):
    """A benchmark resume deletes failed rows to answer again; the arena, made before, still lacks those pairs."""
    run_id = make_run(engine)
    aid = arena.create_arena(f"bench:{run_id}", engine=engine)
    with engine.begin() as c:
        c.execute(tables.bench_answers.delete().where(tables.bench_answers.c.status == "failed"))
    assert arena.arena_summary(arena.get_arena(aid, engine), engine).left_out == {(M2, "gold"): 1}


def test_ask_batches_are_sources_and_only_retrieved_passages_are_shown(engine):
    from lib.qa.ask import AskResult, save_history

    def res(model, mode, text, contexts):
        return AskResult(model=model, mode=mode, answer=text, closed=False, verdict=None, contexts=contexts,
                         question="Which agencies attended?")
    chunks = [ContextPassage("USFWS and USACE attended.", 8, 8, doc_name="eis.pdf", n=1)]
    summary = [ContextPassage("74 page(s) of text", 1, 74, doc_name="eis.pdf")]
    batch = save_history([res(M1, "rag", "USFWS.", chunks), res(M2, "rag", "USFWS and USACE.", chunks),
                          res(M1, "pdf", "The Army.", summary)], "doc1", engine)
    found = {s.source: s for s in arena.sources(engine)}
    assert found[f"ask:{batch}"].n_pairs == 2 and found["ask"].n_pairs == 2  # M1 rag–M2 rag, M1 rag–M1 pdf
    aid = arena.create_arena(f"ask:{batch}", engine=engine)
    pairs = [arena.next_pair(aid, who, engine) for who in ("Ada", "Ben", "Cy", "Di")]
    with_pdf = next(p for p in pairs if "pdf" in (p.left.mode, p.right.mode))
    assert [q.text for q in with_pdf.passages] == ["USFWS and USACE attended."]  # not the full-PDF summary


def test_import_keeps_each_votes_time(engine):
    run_id = make_run(engine)
    aid = arena.create_arena(f"bench:{run_id}", engine=engine)
    arena.cast_vote(aid, "Ada", arena.next_pair(aid, "Ada", engine), "left", engine=engine)
    text = arena_csv.votes_csv(aid, engine).replace(arena.votes(aid, engine)[0].created_at, "2026-01-02 03:04:05")
    other = arena.create_arena(f"bench:{run_id}", engine=engine)
    arena_csv.import_votes_csv(text, other, engine)
    assert arena.votes(other, engine)[0].created_at.startswith("2026-01-02 03:04:05")
    with pytest.raises(UserError, match="created_at 'soon' is not a date"):
        arena_csv.import_votes_csv(text.replace("2026-01-02 03:04:05", "soon"), other, engine)


def test_non_answers_and_identical_answers_are_not_asked(engine):
    from lib.models.base import NO_CONTEXT

    run_id = make_run(engine, fail=())
    t = tables.bench_answers
    with engine.begin() as c:  # the extractive baseline had nothing to quote on I0 (gold), and on I1 the two
        c.execute(t.update().where(t.c.item_id == "I0", t.c.model == M2, t.c.mode == "gold").values(answer=NO_CONTEXT))
        c.execute(t.update().where(t.c.item_id == "I1", t.c.mode == "rag").values(answer="The same words."))  # models agree
    aid = arena.create_arena(f"bench:{run_id}", engine=engine)
    info = arena.get_arena(aid, engine)
    summary = arena.arena_summary(info, engine)
    assert summary.left_out == {(M2, "gold"): 1} and summary.identical == 1
    assert summary.n_pairs == 16 - 2 - 1
    assert not any(NO_CONTEXT in a.text for x, y in arena.arena_pairs(info, engine) for a in (x, y))


def test_undo_takes_back_that_pair_and_brings_it_back_first(engine):
    aid = arena.create_arena(f"bench:{make_run(engine)}", engine=engine)
    first = arena.next_pair(aid, "Ada", engine)
    arena.cast_vote(aid, "Ada", first, "left", engine=engine)
    second = arena.next_pair(aid, "Ada", engine)
    arena.cast_vote(aid, "Ada", second, "right", engine=engine)
    arena.cast_vote(aid, "Ada", first, "tie", engine=engine)  # a re-vote on the first pair, within the same second
    undone = arena.take_back(aid, "Ada", first.pair_key, engine)  # the page undoes the pair it last saw voted on
    assert undone is not None and undone.vote == "tie" and [v.pair_key for v in arena.votes(aid, engine)] == [second.pair_key]
    # other experts vote in between on the undone pair's two systems, so the sampler alone would now pick another
    # pair (fewest votes first); the undone one still comes first
    same = [(x, y) for x, y in arena.arena_pairs(arena.get_arena(aid, engine), engine)
            if {x.system, y.system} == {first.left.system, first.right.system}]
    for who in ("Ben", "Cy", "Di"):
        for x, y in same:
            arena.cast_vote(aid, who, arena.Pair(arena.pair_key(x.answer_id, y.answer_id), x.item_key, x.question,
                                                 x, y), "left", engine=engine)
    assert arena.next_pair(aid, "Ada", engine).pair_key != first.pair_key
    again = arena.next_pair(aid, "Ada", engine, prefer=first.pair_key)
    assert again.pair_key == first.pair_key
    assert (again.left.answer_id, again.right.answer_id) == (first.left.answer_id, first.right.answer_id)
    assert arena.take_back(aid, "Ada", first.pair_key, engine) is None


def test_default_names_say_where_the_answers_come_from(engine):
    run_id = make_run(engine)
    aid = arena.create_arena(f"bench:{run_id}", engine=engine)
    name = arena.get_arena(aid, engine).name
    assert name.startswith("Benchmark of ") and name.endswith("· 4 systems"), name
    with pytest.raises(UserError, match="never compared"):  # two models in RAG, two others in gold: two groups
        from lib.qa.ask import AskResult, save_history

        def res(model, mode):
            return AskResult(model=model, mode=mode, answer=f"{model} {mode}.", closed=False, verdict=None,
                             question="Q?")
        batch = save_history([res("m1", "rag"), res("m2", "rag"), res("m3", "gold"), res("m4", "gold")], None, engine)
        arena.create_arena(f"ask:{batch}", engine=engine)


def test_the_passages_view_checks_both_answers_against_the_same_passages_blind():
    from lib.review.arena import ArenaAnswer, Pair
    from lib.review.arena_support import pair_support, shown_passages

    road = ("The new access road would be 21 miles long and would cross two perennial streams near the northern "
            "boundary of the installation.")
    rag = ArenaAnswer("bench:1", "bench:r:i", "q", "m1", "rag", "The new access road would be 21 miles long [1].",
                      [ContextPassage(road, 12, 12, n=1)])
    none = ArenaAnswer("bench:2", "bench:r:i", "q", "m1", "none", "The new access road would be 12 miles long.")
    pair = Pair("pk", "bench:r:i", "q", rag, none, "", [rag.passages[0]])
    assert [p.page for p in shown_passages(pair)] == ["p. 12"]
    left, right = pair_support(pair)
    assert left.verdict == "supported" and left.sentences[0].evidence["page"] == "p. 12"
    # the answer given no context is checked against the same passage, so nothing says which had none
    assert right.sentences[0].status == "unsupported" and "12 miles" in right.sentences[0].differs[0]
    assert all(s.status != "no source to check" for s in (*left.sentences, *right.sentences))
    assert pair_support(Pair("pk", "k", "q", none, none)) is None  # no passage shown: no check


def test_a_voting_session_times_votes_refuses_stale_keys_and_undoes_its_own_last_vote(engine):
    """The Arena page's vote panel, without Streamlit (lib/app/arena.py): a vote is timed from when its pair came
    on screen; a key that reaches a pair no longer on screen is refused and stores nothing; Undo takes back this
    session's last vote, brings that pair back first and times it afresh; the names are revealed after a vote."""
    from lib.app.arena import StaleKeyError, VotingSession, system_name

    aid = arena.create_arena(f"bench:{make_run(engine)}", engine=engine)
    s = VotingSession(aid, "Ada", engine=engine)
    first = s.next_pair()
    assert s.show(first, 100.0) == 100.0 and s.show(first, 130.0) == 100.0  # first on screen at 100
    s.cast(first, "left", "clearer", 112.5, str.upper)
    [v] = arena.votes(aid, engine)
    assert (v.pair_key, v.vote, v.seconds, v.reason) == (first.pair_key, "left", 12.5, "clearer")
    assert (s.last.vote, s.last.a, s.last.seen) == ("A is better", arena.system_label(*first.left.system, str.upper),
                                                     False)
    second = s.next_pair()
    assert second.pair_key != first.pair_key
    with pytest.raises(StaleKeyError):  # the second pair is not on screen yet: the key meant the first one
        s.cast(second, "right", "", 113.0, str.upper)
    assert len(arena.votes(aid, engine)) == 1
    s.show(second, 120.0)
    s.cast(second, "tie", "", 121.0, str.upper)
    arena.cast_vote(aid, "Ben", first, "right", engine=engine)  # another expert in between: not Ada's to undo
    assert s.undo() == "Tie" and s.last is None
    assert sorted((v.annotator, v.pair_key) for v in arena.votes(aid, engine)) == sorted(
        [("Ada", first.pair_key), ("Ben", first.pair_key)])
    again = s.next_pair()
    assert again.pair_key == second.pair_key  # the undone pair first
    assert s.show(again, 200.0) == 200.0  # timed afresh
    assert s.undo() == "A is better" and s.undo() is None
    key = arena.system_key(M1, "rag")
    assert system_name(key, str.upper) == arena.system_label(M1, "rag", str.upper)
    assert arena.parse_system_key(key) == (M1, "rag") and system_name("not a system", str.upper) == "not a system"

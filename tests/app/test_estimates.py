"""Estimates before work (issue 13): from measured times of the same model and mode, else a stated guess."""
import dataclasses

from sqlalchemy import insert

from lib.app import estimates
from lib.storage import tables
from lib.storage.engine import get_engine


def _engine(tmp_path):
    return get_engine(f"sqlite:///{tmp_path / 'est.db'}")


def test_duration_words():
    assert [estimates.duration(s) for s in (0.2, 45, 89, 90, 3600, 5400)] == [
        "1 s", "45 s", "89 s", "2 min", "60 min", "1 h 30 min"]


def test_answer_rate_is_the_median_of_measured_answers(tmp_path):
    eng = _engine(tmp_path)
    with eng.begin() as c:
        c.execute(insert(tables.bench_runs).values(run_id="r", config="{}", items="[]"))
        c.execute(insert(tables.bench_answers), [
            {"run_id": "r", "item_id": f"I{i}", "model": "local/smollm2-135m", "mode": "rag", "status": "ok",
             "seconds": s} for i, s in enumerate((2.0, 3.0, 100.0))])
        c.execute(insert(tables.bench_answers).values(run_id="r", item_id="F", model="local/smollm2-135m", mode="rag",
                                                     status="failed", seconds=500.0))  # a failure is no timing
        c.execute(insert(tables.ask_history).values(batch_id="b", question="q", model="local/smollm2-135m", mode="rag",
                                                   closed=0, seconds=4.0))
    rate = estimates.answer_rate("local/smollm2-135m", "rag", eng)  # a benchmark's: its own answers first
    assert (rate.seconds, rate.n, rate.measured) == (3.0, 3, True)
    ask = estimates.answer_rate("local/smollm2-135m", "rag", eng, like_ask=True)  # Ask's: with their search
    assert (ask.seconds, ask.n) == (4.0, 1)
    assert estimates.answer_rate("local/smollm2-135m", "gold", eng, like_ask=True).n == 0
    guess = estimates.answer_rate("local/smollm2-135m", "pdf", eng)  # nothing measured in this mode
    assert guess.n == 0 and guess.seconds == estimates.GUESS_LOCAL["pdf"]


def test_benchmark_estimate_adds_local_calls_and_overlaps_remote_ones(tmp_path, monkeypatch):
    monkeypatch.setattr(estimates.cpu_share, "slowdown", lambda: 1.0)  # an idle machine (the load is tested below)
    eng = _engine(tmp_path)
    est = estimates.benchmark(10, ["local/smollm2-135m", "local/extractive"], ["rag", "gold"], eng,
                              from_mode={"rag": 6, "gold": 10})
    assert est.calls == 2 * (6 + 10)
    want = 6 * estimates.GUESS_LOCAL["rag"] + 10 * estimates.GUESS_LOCAL["gold"] + 16 * estimates.GUESS_EXTRACTIVE
    assert abs(est.seconds - want) < 1e-9
    assert est.guessed and not est.measured
    # nothing measured: no figure, but what the run will do
    assert est.text() == ("not measured here yet for local/smollm2-135m · rag, local/smollm2-135m · gold, "
                          "local/extractive · rag, local/extractive · gold: the run measures it and shows the time "
                          "left as it goes")
    remote = estimates.benchmark(8, ["openai/not-configured"], ["none"], eng, workers=4)
    assert abs(remote.seconds - 8 * estimates.GUESS_REMOTE["none"] / 4) < 1e-9


def test_exam_rate_from_stored_answer_times(tmp_path, monkeypatch):
    monkeypatch.setattr(estimates.cpu_share, "slowdown", lambda: 1.0)  # an idle machine (the load is tested below)
    eng = _engine(tmp_path)
    with eng.begin() as c:
        c.execute(insert(tables.exam_answers), [
            {"run_id": "x", "model": "local/smollm2-135m", "shots": 0, "cot": 0, "split": "test", "course": "c",
             "q_index": i, "gold": "A", "correct": 1, "parsed": 1, "seconds": s} for i, s in enumerate((0.2, 0.4, 0.6))])
    rate = estimates.exam_rate("local/smollm2-135m", 0, False, eng)
    assert (round(rate.seconds, 3), rate.n) == (0.4, 3)
    assert estimates.exam_rate("local/smollm2-135m", 5, False, eng).n == 0  # 5-shot not measured yet
    est = estimates.exam("local/smollm2-135m", 84, 0, False, eng, workers=1)
    assert est.calls == 84 and abs(est.seconds - 84 * 0.4) < 1e-9 and not est.guessed


def test_generation_rate_from_finished_jobs(tmp_path, monkeypatch):
    monkeypatch.setattr(estimates.cpu_share, "slowdown", lambda: 1.0)  # an idle machine (the load is tested below)
    import json

    eng = _engine(tmp_path)
    with eng.begin() as c:
        c.execute(insert(tables.jobs).values(
            job_id="g1", kind="generate", title="t", status="done", progress=1.0, created_at=1.0, started_at=10.0,
            ended_at=70.0, params=json.dumps({"model": "local/smollm2-135m", "chunks": [1, 2],
                                              "per_type": {"closed": 2, "recall": 1, "funnel": 0}})))
    est = estimates.generation("local/smollm2-135m", 3, {"closed": 1, "recall": 1}, eng)
    # the finished job made 2 passages × 2 types = 4 calls in 60 s: 15 s a call; this plan is 6 calls
    assert est.calls == 6 and abs(est.seconds - 90.0) < 1e-9 and not est.guessed


def test_items_that_fit_a_minute():
    assert estimates.items_that_fit(3.0, 155) == 20  # 60 s / 3 s
    assert estimates.items_that_fit(0.5, 20) == 0  # all 20 fit: 0 means all
    assert estimates.items_that_fit(400.0, 20) == 1  # never fewer than one
    assert estimates.items_that_fit(0.0, 20) == 0


def test_a_measured_estimate_is_a_range_at_most_twice_as_wide_and_scaled_by_the_load(tmp_path, monkeypatch):
    eng = _engine(tmp_path)
    with eng.begin() as c:
        c.execute(insert(tables.exam_answers), [
            {"run_id": "x", "model": "local/smollm2-135m", "shots": 0, "cot": 0, "split": "test", "course": "c",
             "q_index": i, "gold": "A", "correct": 1, "parsed": 1, "seconds": 0.5} for i in range(3)])
    monkeypatch.setattr(estimates.cpu_share, "slowdown", lambda: 1.0)
    idle = estimates.exam("local/smollm2-135m", 42, 0, False, eng, workers=1)
    assert idle.seconds == 21.0 and (idle.low, idle.high) == (21.0 * estimates.LOW, 21.0 * estimates.HIGH)
    assert idle.high / idle.low <= 2
    assert idle.text() == ("about 16–32 s (from the median time of each model's recent calls on this machine)")
    monkeypatch.setattr(estimates.cpu_share, "slowdown", lambda: 2.0)  # the other of two cores busy
    busy = estimates.exam("local/smollm2-135m", 42, 0, False, eng, workers=1)
    # from its idle time to twice it: a long prompt slows by about the cores taken, a short answer by less
    assert (busy.seconds, busy.low, busy.high) == (42.0, 21.0, 42.0)
    assert busy.text() == ("about 21–42 s (from the median time of each model's recent calls on this machine; the "
                           "machine is busy now, so local models run about 2.0× slower)")
    monkeypatch.setattr(estimates.cpu_share, "slowdown", lambda: 4.0)  # three of four cores busy
    crowded = estimates.exam("local/smollm2-135m", 42, 0, False, eng, workers=1)
    assert (crowded.low, crowded.high) == (42.0, 84.0)  # never wider than 2×
    monkeypatch.setattr(estimates.cpu_share, "slowdown", lambda: 1.33)  # slightly busy: never narrower than idle
    slight = estimates.exam("local/smollm2-135m", 42, 0, False, eng, workers=1)
    assert slight.low <= idle.low and slight.high >= idle.high and slight.high / slight.low <= 2
    remote = estimates.exam("openai/not-configured", 40, 0, False, eng, workers=4)
    assert remote.slowdown == 1.0  # a remote model does not run here


def test_spans_and_the_time_left_while_a_run_goes():
    assert [estimates.span(a, b) for a, b in ((16.7, 30.2), (100, 200), (170, 340), (400, 800), (3600, 7500))] == [
        "16–31 s", "1.5–3.5 min", "2.5–6 min", "6–14 min", "60 min – 2 h 5 min"]  # low end rounded down, high end up
    assert estimates.time_left(10.0, 0, 42) == "" and estimates.time_left(10.0, 42, 42) == ""
    assert estimates.time_left(10.0, 10, 30) == "about 16–30 s left"  # 1 s each, 20 to go
    pace = estimates.Pace()
    assert pace.left(5, 30) == ""  # a resumed run: its first 5 were done before, and are not this run's pace
    pace.start = (pace.start[0] - 10.0, 5)
    assert pace.left(15, 29) == "about 11–22 s left"  # 10 in a little over 10 s, 14 to go


def test_the_countdown_takes_each_model_at_its_own_pace():
    """A fast model's answers arriving first must not set the pace of a slow model's still to come (the demo's
    countdown read 15 s, then rose to 50 s)."""
    parts = [{"what": "fast", "model": "fast", "mode": "rag", "calls": 3, "seconds": 1.0, "measured_n": 5, "local": True},
             {"what": "slow", "model": "slow", "mode": "rag", "calls": 3, "seconds": 8.0, "measured_n": 5, "local": True}]
    est = estimates.Estimate(6, 27.0, parts, slowdown=1.0, local_s=27.0)
    down = estimates.Countdown(est)
    assert down.seconds() == 27.0  # before any answer: the estimate's own rates
    down.arrived("fast", "rag", 0.5)
    down.arrived("fast", "rag", 0.5)
    assert down.seconds() == 0.5 + 24.0  # the fast model's own pace is measured; the slow one's is still estimated
    down.arrived("slow", "rag", 10.0)
    assert down.seconds() == 0.5 + 20.0  # one fast and two slow to come, each at this run's measured pace
    assert down.left() == "about 16–31 s left"
    down.arrived("fast", "rag", 0.5)
    down.arrived("slow", "rag", 10.0)
    down.arrived("slow", "rag", 10.0)
    assert down.left() == ""
    resumed = estimates.Countdown(dataclasses.replace(est, slowdown=2.0), calls=1)  # one item left, a busy machine
    assert resumed.seconds() == 2.0 + 16.0


def test_the_countdown_gives_no_figure_from_a_rough_guess():
    """On a first run nothing is measured: the page gave a time left built from the rough guesses (a third of the
    time actually left, in the bench's first run). A model's pace counts once it has answered in this run."""
    parts = [{"what": "a", "model": "a", "mode": "rag", "calls": 2, "seconds": 3.0, "measured_n": 0, "local": True},
             {"what": "b", "model": "b", "mode": "rag", "calls": 2, "seconds": 0.3, "measured_n": 0, "local": True}]
    down = estimates.Countdown(estimates.Estimate(4, 6.6, parts, local_s=6.6))
    assert down.left() == ""
    down.arrived("a", "rag", 4.0)
    assert down.left() == "" and not down.known  # b has not answered here yet: its time is a guess
    down.arrived("b", "rag", 1.0)
    assert down.known and down.seconds() == 4.0 + 1.0 and down.left() == "about 4–8 s left"


def test_the_countdown_of_remote_calls_counts_their_overlap_once():
    """Remote calls run ``workers`` at a time: their guessed time is shared among the workers, but the wall time
    between their answers already holds that overlap (it was divided by the workers twice)."""
    remote = [{"what": "r", "model": "r", "mode": "rag", "calls": 9, "seconds": 8.0, "measured_n": 3, "local": False}]
    down = estimates.Countdown(estimates.Estimate(9, 18.0, remote), workers=4)
    assert down.seconds() == 9 * 8.0 / 4
    for gap in (8.0, 0.1, 0.1, 0.1, 7.7):  # the first wave of four, then one more
        down.arrived("r", "rag", gap)
    assert abs(down.seconds() - 4 * 16.0 / 5) < 1e-9  # 4 to come at the 3.2 s between answers measured (not / 4)


def test_a_local_model_is_given_the_cores_another_process_leaves_free():
    """Measured, not mocked: a busy loop in another process takes a core, and the next call gets one fewer."""
    import os
    import subprocess
    import sys
    import time

    from lib.models import cpu_share

    busy = subprocess.Popen([sys.executable, "-c", "import time\nt = time.time()\nwhile time.time() - t < 30: pass"])
    try:
        time.sleep(1.0)
        cpu_share.others_busy()  # a look, then one over a window of the busy loop alone
        time.sleep(1.0)
        assert cpu_share.others_busy() >= 0.7
        # at most all but the busy core (other programs on a loaded machine may take more)
        assert cpu_share.threads() <= max(1, cpu_share.cores() - 1)
        assert cpu_share.slowdown() >= cpu_share.cores() / max(1, cpu_share.cores() - 1)
    finally:
        busy.kill()
    # once the loop has stopped, a look after a while no longer says busy (a stale reading is not kept)
    time.sleep(cpu_share.FRESH_S + 0.5)
    others = cpu_share.others_busy()
    assert others < 0.7 or os.getloadavg()[0] > 1.5, others  # (unless the machine is really busy now)

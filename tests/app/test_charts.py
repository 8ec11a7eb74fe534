"""Charts and tables built in lib/app/charts.py (pages only lay them out): n and intervals travel with every score."""
from dataclasses import replace

import pandas as pd

from lib.app import charts
from lib.core.stats import Majority
from lib.evaluation import exam as ee


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"kind": ["closed", "closed", "open"], "model": ["local/a", "local/b", "local/a"],
                         "mode": ["rag", "gold", "rag"], "score": [0.8123, 0.5, 0.41],
                         "ci_low": [0.6, 0.2, 0.3], "ci_high": [0.95, 0.8, 0.52], "n": [12, 3, 9],
                         "small": [False, True, False]})


def test_score_table_keeps_n_interval_and_small_sample_note():
    t = charts.score_table(_frame(), "closed", lambda m: m.upper())
    assert list(t.columns) == ["model", "mode", "score", "95% interval", "n", "note"]
    assert t["model"].tolist() == ["LOCAL/A", "LOCAL/B"] and t["mode"].tolist() == ["Retrieved passages (RAG)", "Gold passage"]
    assert t["95% interval"].tolist() == ["0.60–0.95", "0.20–0.80"] and t["n"].tolist() == [12, 3]
    assert t["note"].tolist() == ["", charts.SMALL]
    mb = charts.majority_row(Majority(answer="yes", accuracy=0.75, n=12, ci95=[0.5, 0.9]))
    assert mb.iloc[0]["model"] == "Majority baseline (always 'yes')" and mb.iloc[0]["n"] == 12


def test_score_bars_draw_intervals_and_grey_small_cells():
    spec = charts.score_bars(_frame()[lambda f: f["kind"] == "closed"], "closed accuracy", str).to_dict()
    layers = spec["spec"]["layer"]
    assert {layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"] for layer in layers} == {
        "bar", "rule"}
    colour = layers[0]["encoding"]["color"]["scale"]
    assert colour["domain"] == ["n ≥ 5", charts.SMALL] and colour["range"][1] == "#c8c8c8"
    data = next(iter(spec["datasets"].values()))
    assert {row["reading"] for row in data} == {"n ≥ 5", charts.SMALL}


def test_exam_frames_and_optional_shots_chart():
    meta = pd.DataFrame({"course": ["c1", "c2"], "title": ["Course 1", "Course 2"], "level": ["Bachelor", "Master"]})
    run = ee.ExamRun(run_id="r0", model="m", shots=0, cot=False, split="test", circular=False, n_questions=4,
                     n_courses=2, n_planned=4, limit=2, partial=True, failed=0, unparsed=0,
                     courses={"c1": 50.0, "c2": 25.0}, M=37.5, sigma=12.5, cv=0.33, I=25.0, void=False,
                     label="m · 0-shot")
    runs = [run]
    per = charts.exam_per_course(runs, meta)
    assert per["model"].unique().tolist() == ["m · 0-shot (partial)"] and set(per["title"]) == {"Course 1", "Course 2"}
    assert charts.shots_bars(per) is None  # one setting only: nothing to compare
    runs.append(replace(run, run_id="r5", label="m · 5-shot", shots=5, courses={"c1": 75.0, "c2": 50.0}))
    assert charts.shots_bars(charts.exam_per_course(runs, meta)) is not None
    board = charts.exam_leaderboard([ee.BoardRow("x", M=1.0, sigma=0.1, cv=0.1, I=0.9, source="s", n_questions=726,
                                                 failed=0, unparsed=0)])
    assert board["n"].tolist() == [726]


def test_the_course_heatmap_names_every_course_on_its_own_row():
    titles = [ee.course_title(c) for c in ee.courses()]
    per = pd.DataFrame({"model": "m", "title": titles, "level": "Bachelor", "accuracy": 50.0})
    spec = charts.course_heatmap(per, titles).to_dict()
    assert spec["encoding"]["y"]["field"] == "title" and spec["encoding"]["y"]["sort"] == titles
    assert spec["encoding"]["y"]["axis"]["labelOverlap"] is False  # Vega hid every other title to avoid overlap
    assert spec["height"] == {"step": 20} and spec["config"]["axis"]["labelLimit"] == 0


def test_exam_leaderboard_names_every_bar_and_labels_runs_made_here():
    board = pd.DataFrame([{"model": f"published-model-{i}", "source": "published", "M": 50.0, "sigma": 5.0, "cv": 0.1,
                           "I": 40.0 + i, "n": 726} for i in range(31)]
                         + [{"model": "SmolLM2-135M (tiny local model)", "source": "run here", "M": 30.0, "sigma": 9.0,
                             "cv": 0.3, "I": 21.0, "n": 726}])
    spec = charts.exam_leaderboard_chart(board, "published", "run here").to_dict()
    bars, labels = spec["layer"]
    assert bars["encoding"]["y"]["axis"]["labelOverlap"] is False  # no model name is dropped for lack of room
    assert labels["mark"]["type"] == "text" and "run here" in str(labels["transform"])  # the run here is labelled
    order = bars["encoding"]["y"]["sort"]
    assert order[0] == "published-model-30" and order[-1] == "SmolLM2-135M (tiny local model)"  # best first


def test_a_paired_test_on_too_few_items_makes_no_claim():
    from lib.evaluation.benchmark.report import MIN_TEST_N, PairedTest, describe_test

    t = PairedTest(a=("m", "rag"), b=("m", "gold"), kind="open", test="paired bootstrap", n=3, diff=0.08,
                   p_value=0.001, p_adjusted=0.008, within_noise=False)
    text = describe_test(t, lambda m: "Model")
    assert "too few to compare" in text and "better" not in text and "p =" not in text and MIN_TEST_N > 3
    assert "Retrieved passages (RAG) vs Gold passage" in text  # plain mode names, not ids
    t.n = 40
    assert "Model: Retrieved passages (RAG) is better on open score by 0.08 on 40 items" in describe_test(t, lambda m: "Model")


def test_arena_charts_draw_unbounded_ends_and_say_so():
    from lib.core.stats.bradley_terry import ratings, win_matrix
    from lib.review.arena_csv import read_votes_csv

    votes = read_votes_csv("left_model,right_model,vote\n" + "a,b,left\n" * 3 + "b,c,tie\nc,b,left\n" * 3)
    r = ratings(votes, n_bootstrap=50)
    table = charts.arena_table(r, str.upper)
    assert table["system"].tolist()[0] == "A" and table["95% interval (rating)"][0] == "not bounded by the votes yet"
    spec = charts.arena_ratings_chart(r, str.upper).to_dict()
    datasets = [d for d in spec["datasets"].values() if d and "system" in d[0]]
    everyone = max(datasets, key=len)
    a = next(x for x in everyone if x["system"] == "A")
    assert a["interval"] == "not bounded by the votes yet" and a["hi"] is None
    lines = min(datasets, key=len)  # the interval lines: only the systems the votes bound
    assert sorted(x["system"] for x in lines) == ["B", "C"]
    heat = charts.win_rate_heatmap(win_matrix(votes), str.upper).to_dict()
    cells = {x["cell"] for x in next(iter(heat["datasets"].values()))}
    assert "100% (n=3)" in cells and "0% (n=3)" in cells
    bias = charts.position_bias_chart(r.position_bias).to_dict()
    assert next(iter(bias["datasets"].values()))[0]["n"] == 6

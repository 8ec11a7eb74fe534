"""Exports are safe to open in a spreadsheet (issue 10, case 6) and untrusted text is shown as text (case 8).

Each test builds the frame a page exports with the same lib calls the page makes, and writes it with the page's own
one-line export call (``csv_safe.to_csv``): formula-like cells come out neutralised in CSV, raw in JSON.
"""
import csv
import html
import io
import json
import re

import pandas as pd
import pytest

from lib.app import benchmark
from lib.core import csv_safe
from lib.evaluation import exam as ee
from lib.evaluation.benchmark.dataset import Item
from lib.evaluation.benchmark.runner import run_benchmark
from lib.evaluation.benchmark.runs import RunConfig
from lib.qa import ask as ask_lib
from lib.storage.engine import get_engine

HYPERLINK = '=HYPERLINK("http://x","Click")'
DDE = "+cmd|' /C calc'!A0"
MINUS = "-2+3"
AT = "@SUM(A1)"
FORMULAS = (HYPERLINK, DDE, MINUS, AT)


def parse(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def assert_no_live_formula(rows: list[dict[str, str]]) -> None:
    """No cell (header included) that a spreadsheet would run: numbers are numbers, everything else is safe text."""
    for row in rows:
        for key, cell in row.items():
            for value in (key, cell or ""):
                if value.startswith(csv_safe.TRIGGERS):
                    try:
                        float(value)
                    except ValueError:
                        pytest.fail(f"live formula in column {key!r}: {value!r}")


def test_benchmark_answers_csv_neutralised_json_raw(tmp_path):
    eng = get_engine(f"sqlite:///{tmp_path / 'exports.db'}")
    # one sentence (no split before "@"), so the extractive baseline quotes it whole: the answer starts with "="
    passage = f"{HYPERLINK} shows the wetland mitigation plan for the selected site. {AT} is the acreage total."
    item = Item(id=DDE, question_type="recall", question=HYPERLINK, answer=MINUS, context=passage, doc="not-indexed")
    s = run_benchmark([item], RunConfig(models=["extractive"], modes=["gold"]), None, run_id="exports", engine=eng)
    assert s.answers == 1 and s.failures == 0

    # what the Benchmark page's downloads hold (lib/app/benchmark.py)
    res = benchmark.run_results("exports", eng)
    assert res is not None
    df = res.answers
    rows = parse(benchmark.answers_csv(res))
    assert len(rows) == 1
    row = rows[0]
    assert row["item_id"] == "'" + DDE
    assert row["question"] == "'" + HYPERLINK
    assert row["expected"] == "'" + MINUS
    assert row["answer"].startswith("'" + HYPERLINK) and AT in row["answer"]
    assert_no_live_formula(rows)
    # reading our own export back gives the text as it was
    assert csv_safe.unneutralise(row["answer"]) == df.loc[0, "answer"]

    raw = json.loads(benchmark.run_json(res))["answers"][0]
    assert (raw["item_id"], raw["question"], raw["expected"]) == (DDE, HYPERLINK, MINUS)
    assert raw["answer"].startswith(HYPERLINK)


def test_ask_history_csv_neutralised_json_raw(tmp_path):
    eng = get_engine(f"sqlite:///{tmp_path / 'history.db'}")
    passage = f"{MINUS} is what the table says about the wetlands at the site. {AT} totals the acres."
    answered = ask_lib.ask(HYPERLINK, "extractive", "gold", gold=passage, closed=False)
    assert not answered.error and answered.answer.startswith(MINUS)
    failed = ask_lib.AskResult(model="local/extractive", mode="none", answer=None, closed=False, verdict=None,
                               error=f"{AT} the server refused", question=HYPERLINK)
    ask_lib.save_history([answered, failed], DDE, engine=eng)

    # what pages/ask.py exports
    hist = ask_lib.load_history(engine=eng)
    rows = parse(csv_safe.to_csv(pd.DataFrame(hist)))
    assert len(rows) == 2
    assert {r["question"] for r in rows} == {"'" + HYPERLINK}
    assert {r["doc_id"] for r in rows} == {"'" + DDE}
    by_mode = {r["mode"]: r for r in rows}
    assert by_mode["gold"]["answer"].startswith("'" + MINUS)
    assert by_mode["none"]["error"] == f"'{AT} the server refused"
    assert_no_live_formula(rows)

    raw = json.loads(ask_lib.export_json(hist))
    assert {h["question"] for h in raw} == {HYPERLINK} and {h["doc_id"] for h in raw} == {DDE}
    assert {h["mode"]: h for h in raw}["gold"]["answer"].startswith(MINUS)


def exam_run(label: str, run_id: str) -> ee.ExamRun:
    """A full run made here, as ee.all_runs() describes one (ranked on the leaderboard)."""
    courses = {c: 50.0 + i for i, c in enumerate(ee.courses())}
    return ee.ExamRun(run_id=run_id, model=label, label=label, shots=0, cot=False, split="test", circular=False,
                      partial=False, n_questions=726, n_courses=len(courses), n_planned=726, limit=None, failed=0,
                      unparsed=0, courses=courses, M=60.0, sigma=10.0, cv=1 / 6, I=50.0, void=False)


def test_enviroexam_leaderboard_and_course_csv_neutralised():
    runs = [exam_run(f, f"run{i}") for i, f in enumerate(FORMULAS)]

    # what pages/enviroexam.py exports: the ranked board ...
    board = pd.DataFrame([b.__dict__ for b in ee.leaderboard(runs=runs)])
    board["n"] = board["n_questions"].astype("Int64")
    board = board[["model", "M", "sigma", "cv", "I", "source", "n", "failed", "unparsed"]]
    rows = parse(csv_safe.to_csv(board))
    models = {r["model"] for r in rows}
    assert {"'" + f for f in FORMULAS} <= models
    assert not set(FORMULAS) & models
    assert_no_live_formula(rows)

    # ... and the per-course accuracy
    meta = pd.DataFrame([{"course": c, "title": ee.course_title(c), "level": ee.course_level(c)} for c in ee.courses()])
    per = pd.DataFrame([{"model": r.label + (" (partial)" if r.partial else ""), "shots": r.shots,
                         "course": c, "accuracy": a} for r in runs for c, a in r.courses.items()]).merge(meta, on="course")
    rows = parse(csv_safe.to_csv(per))
    assert {r["model"] for r in rows} == {"'" + f for f in FORMULAS}
    assert_no_live_formula(rows)


UNTRUSTED = [
    "![x](http://127.0.0.1:9/leak.png)",
    '<img src="http://127.0.0.1:9/leak.png"> <script>alert(1)</script>',
    "[click](http://127.0.0.1:9/) **bold** _it_ `code` ~~gone~~ $x^2$ :red[red] &lt;b&gt;",
    "![y][ref]\n\n[ref]: http://127.0.0.1:9/ref.png",
    "# heading\n- item\n+ item\n1. item\n2) item\n> quote\n| a | b |",
    "back\\slash \\![x](http://127.0.0.1:9/esc.png)",
    "Willow EIS (http://e.com) and www.blm.gov/alaska, HTTPS://X.ORG",
]


@pytest.mark.parametrize("text", UNTRUSTED)
def test_plain_and_code_show_untrusted_text_as_written(text):
    """pages._ui.plain and code, rendered by a CommonMark parser: no image, link or HTML, and the text as written."""
    markdown_it = pytest.importorskip("markdown_it")
    from pages._ui import code, plain

    md = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"])
    for rendered in (md.render(plain(text)), md.render(f"Cell **ours**: {code(text)}")):
        assert not re.search(r"<(img|a|script|h\d|li|blockquote|table|em|strong|del)\b", rendered.replace("<strong>ours</strong>", ""))
    shown = html.unescape(re.sub(r"<[^>]+>", "", md.render(plain(text)))).strip()
    assert [ln.strip() for ln in shown.splitlines() if ln.strip()] == [ln.strip() for ln in text.splitlines() if ln.strip()]
    assert " ".join(text.split()) in " ".join(html.unescape(re.sub(r"<[^>]+>", "", md.render(code(text)))).split())
    # GitHub-flavoured Markdown (what Streamlit renders) links bare URLs: plain() leaves no scheme or www. intact
    assert not re.search(r"(?i)(https?|ftp|mailto):|www\.", plain(text))

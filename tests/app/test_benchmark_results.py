"""The Benchmark Results use case (lib/app/benchmark.py), without Streamlit: the rules the Results tab used to
decide itself (which paired comparisons read as real, when the closed table is too small to read, what the
manifest lists) and one run read whole from a real store."""
import csv
import io
import json

import pandas as pd

from lib.app import benchmark
from lib.evaluation.benchmark import Item, RunConfig, run_benchmark
from lib.evaluation.benchmark.report import PairedTest
from lib.qa.manifest import Manifest
from lib.storage.engine import get_engine


def _test(n: int, within_noise: bool) -> PairedTest:
    return PairedTest("open", ("m", "rag"), ("m", "gold"), "paired bootstrap", n, 0.1, 0.01, within_noise)


def test_paired_tests_are_tallied_by_what_they_can_claim():
    tests = [_test(3, False),  # too few items: no claim, whatever the test says
             _test(12, False),  # a real difference
             _test(12, True),
             _test(5, True)]  # exactly MIN_TEST_N: a comparison, within noise
    tally = benchmark.tally_tests(tests)
    assert tally == benchmark.PairedTally(total=4, beyond_noise=1, within_noise=2, too_few=1)
    assert tally.sentence() == ("4 paired comparison(s) on the same items: 1 show a difference beyond noise, "
                                "2 within noise, 1 with too few items to compare (fewer than 5)")
    assert benchmark.tally_tests([_test(9, True)]).sentence() == \
        "1 paired comparison(s) on the same items: 0 show a difference beyond noise, 1 within noise"


def _comp(*rows: tuple[str, int, bool]) -> pd.DataFrame:
    return pd.DataFrame([{"model": "m", "mode": "gold", "kind": kind, "score": 0.5, "ci_low": 0.1, "ci_high": 0.9,
                          "n": n, "small": small} for kind, n, small in rows],
                        columns=["model", "mode", "kind", "score", "ci_low", "ci_high", "n", "small"])


def test_the_closed_table_is_shown_only_when_it_can_be_read():
    table = pd.DataFrame({"model": ["m"]})
    few = benchmark.closed_view(_comp(("closed", 2, True), ("closed", 3, True), ("open", 40, False)), table, 0)
    assert few.state == "too_few"
    assert few.note.startswith("Too few closed items to read: 3 per cell (fewer than 5).")
    readable = benchmark.closed_view(_comp(("closed", 4, True), ("closed", 30, False)), table, 0)
    assert (readable.state, readable.note) == ("table", "")
    quotes = benchmark.closed_view(_comp(("open", 40, False)), table, 7)
    assert quotes.state == "no_verdict"
    assert quotes.note.startswith("No closed accuracy: 7 closed answer(s) came with no verdict")
    # no closed item and nothing unscored: the table as before (it may hold only the majority row)
    assert benchmark.closed_view(_comp(("open", 40, False)), table, 0).state == "table"


def test_the_manifest_lists_what_reproduces_a_run():
    man = {"models": [{"id": "local/extractive", "options": {"temperature": None, "context_window": 8192}},
                      {"id": "openai/gpt-x", "options": {"temperature": 0.0, "context_window": 128000, "seed": 7}}],
           "embedder": "MiniLM-L6 int8", "app_version": "abc123",
           "documents": [{"name": "sample.pdf", "sha256": "0123456789abcdef", "chunk_size": 220, "chunk_overlap": 40,
                          "gen": 2}],
           "settings": {"NEPAQA_K": 3, "UNSET": None, "modes": ["rag", "gold"]}, "prompts": {"rag": "feedbeef"}}
    rows = dict(benchmark.manifest_rows("r1", "2026-12-04 05:00:00.123456", Manifest.from_json(man)))
    assert rows["run id (for `python -m lib bench --run-id`)"] == "r1"
    assert rows["started"] == "2026-12-04 05:00:00"
    assert rows["models"] == "local/extractive, openai/gpt-x"
    assert rows["options sent to local/extractive"] == ("temperature not sent (model default or no sampling), "
                                                        "window 8,192 tokens")
    assert rows["options sent to openai/gpt-x"] == "temperature 0, window 128,000 tokens, seed 7"
    assert rows["judge"] == "none (token-F1 proxy)"
    assert rows["document sample.pdf"] == "sha256 0123456789ab…, chunks 220/40 tokens, index generation 2"
    assert rows["setting NEPAQA_K"] == "3" and "setting UNSET" not in rows
    assert rows["setting modes"] == '["rag", "gold"]'  # as JSON, not as Python prints a list
    assert rows["prompt rag"] == "sha256 feedbeef"
    assert rows["embedder"] == "MiniLM-L6 int8" and rows["app version"] == "abc123"

    # a run that recorded no manifest: no value, never the word "None" (the page shows "—")
    bare = dict(benchmark.manifest_rows("r0", "", None))
    assert bare["embedder"] is None and bare["app version"] is None
    assert bare["models"] == "" and bare["judge"] == "none (token-F1 proxy)"
    assert not any(k.startswith(("document ", "setting ", "prompt ", "options ")) for k in bare)


def test_a_run_is_read_whole_and_its_downloads_hold_every_answer(tmp_path):
    eng = get_engine(f"sqlite:///{tmp_path / 'results.db'}")
    passage = "The proposed pipeline crosses 14 wetlands. Mitigation restores 30 acres near the river."
    items = [Item(id=f"q{i}", question_type="closed" if i % 2 else "recall", question=f"Question {i}?",
                  answer="yes" if i % 2 else "The pipeline crosses 14 wetlands.", context=passage, doc="none")
             for i in range(4)]
    run_benchmark(items, RunConfig(models=["extractive"], modes=["gold", "none"]), None, run_id="r", engine=eng)

    assert benchmark.run_results("missing", eng) is None
    res = benchmark.run_results("r", eng)
    assert res is not None
    assert (res.summary.n_items, res.summary.answers, res.summary.failures) == (4, 8, 0)
    # the extractive baseline gives no yes or no: its closed answers are counted apart, never scored wrong, and
    # the comparisons use the two open items every cell answered
    assert res.summary.no_verdict == 4
    assert sorted(res.common) == ["q0", "q2"]
    assert res.summary.comparison.left_out == 2
    assert res.majority is None  # no closed item among the compared ones
    assert benchmark.closed_view(res.comparison, pd.DataFrame(), res.summary.no_verdict).state == "no_verdict"
    assert res.proxy  # no judge: the token-F1 proxy, not comparable with published RAGAS figures
    assert len(res.answers) == 8 and set(res.answers["mode"]) == {"gold", "none"}
    # gold against no context on the 2 open items: one paired comparison, too few items to claim anything
    assert res.tally == benchmark.PairedTally(total=1, beyond_noise=0, within_noise=0, too_few=1)
    assert not res.type_mode_readable

    table = benchmark.item_table(res.answers, {"local/extractive": "Extractive baseline (no LLM)"}.get)
    assert list(table.columns) == ["Item", "Question type", "Model", "Context", "Score", "Verdict", "Answer"]
    assert set(table["Model"]) == {"Extractive baseline"}  # its description is on the answer's card
    assert set(table["Context"]) == {"Gold passage", "No context"}
    # where there is no score, why in words: the 4 closed answers gave no yes/no by design (the baseline quotes)
    assert (table["Score"] == "no yes/no given").sum() == 4 and "no_verdict" not in set(table["Score"])
    # one type per column, so the table reaches the browser whole: a score as text with two decimals
    assert all(isinstance(v, str) for v in table["Score"])
    assert all(v == "no yes/no given" or (len(v) == 4 and 0 <= float(v) <= 1) for v in table["Score"])
    from lib.core import without_notes
    assert without_notes("SmolLM2-135M (tiny local model) · 0-shot") == "SmolLM2-135M · 0-shot"
    assert without_notes("OpenAI gpt-4o-mini") == "OpenAI gpt-4o-mini"
    from lib.core import told_apart  # two documents with one title, told apart by their files (the others as they are)
    assert told_apart({"a": "Tongass EIS", "b": "Tongass EIS", "c": "Fort Drum EIS"},
                      {"a": "tongass_v1.pdf", "b": "tongass_v2.pdf", "c": "drum.pdf"}) == {
        "a": "Tongass EIS · tongass_v1.pdf", "b": "Tongass EIS · tongass_v2.pdf", "c": "Fort Drum EIS"}
    # what a verdict came from is on the answer's card, in words
    assert benchmark.verdict_words("yes", "text") == "yes, from the text parser"
    assert benchmark.verdict_words(None, "none") == "" and benchmark.verdict_words("no", None) == "no"
    assert benchmark.verdict_words("quotes only", "none") == "none (quotes only)"  # not "quotes only, from none …"
    import pyarrow as pa

    pa.Table.from_pandas(table)  # what st.dataframe does: a column of mixed types failed here
    records = list(csv.DictReader(io.StringIO(benchmark.answers_csv(res))))
    assert len(records) == 8 and "gold_context" not in records[0]
    assert sorted((r["item_id"], r["mode"]) for r in records) == sorted((f"q{i}", m) for i in range(4)
                                                                        for m in ("gold", "none"))
    assert all(isinstance(json.loads(r["metrics"]), dict) for r in records)
    # the sources each answer was given, as JSON (not Python's printout): gold's one passage, none's nothing
    given = {"gold": [{"page_start": None, "page_end": None, "text": passage}], "none": []}
    assert all(json.loads(r["contexts"]) == given[r["mode"]] for r in records)
    whole = json.loads(benchmark.run_json(res))
    assert whole["run_id"] == "r" and len(whole["answers"]) == 8 and whole["summary"]["answers"] == 8
    assert whole["config"]["models"] == ["local/extractive"]
    assert all(a["contexts"] == given[a["mode"]] for a in whole["answers"])


def test_item_sets_are_named_in_words():
    assert benchmark.item_set_name("NEPAQuAD1_sample20.csv") == "NEPAQuAD sample (20 items)"
    assert benchmark.item_set_name("generated:eis_Continental_United_States_Interceptor_Site:2026-12-06 01:55") == \
        "Items generated from Continental United States Interceptor Site, 2026-12-06 01:55"
    assert benchmark.item_set_name("generated:my_doc") == "Items generated from my doc"
    assert benchmark.item_set_name("my_items.csv") == "my_items.csv"  # a file is named as the user uploaded it

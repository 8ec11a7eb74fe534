"""AppTest: the Ask, Benchmark, Validate and EnviroExam pages with the offline models."""
import re

from streamlit.testing.v1 import AppTest

from lib.core import config
from lib.evaluation.benchmark.dataset import load_items
from lib.review import annotations as ann
from tests.conftest import ROOT, settle

T = 300


def page(name: str) -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / name), default_timeout=T)


def charts(at: AppTest) -> list:
    return at.get("arrow_vega_lite_chart") + at.get("vega_lite_chart")


def test_ask_page_fills_grid(services, sample_doc):
    at = page("ask.py").run()
    assert not at.exception
    at.multiselect(key="ask_models").set_value(["local/extractive", "local/smollm2-135m"]).run()
    at.multiselect(key="ask_modes").set_value(["none", "rag", "gold"]).run()
    gold_pick = at.selectbox(key="gold_pick")
    gold_pick.set_value(gold_pick.options[1]).run()
    # typed, then Run: the question goes with the click, as in a browser form
    at.text_area(key="question").input("Which agencies attended the coordination meetings?")
    next(b for b in at.button if b.label == "Run").click().run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    for label in ("Extractive baseline (no LLM)", "SmolLM2-135M (tiny local model)"):
        for mode in ("No context", "Retrieved passages (RAG)", "Gold passage"):
            assert f"**{label}** · {mode}" in text
    assert any("Sources: p." in c.value for c in at.caption)
    # every answer with sources says how well they back it; the extractive baseline quotes its sources, so its
    # gold answer is supported sentence by sentence
    support_lines = [c.value for c in at.caption if c.value.startswith("Support (offline check): ")]
    assert len(support_lines) >= 3 and any(" claims supported" in v for v in support_lines)
    marks = [t.value for t in at.text if t.value[:2] in ("✓ ", "◐ ", "✗ ", "○ ", "– ")]
    assert marks and any(m.startswith("✓ supported [1, the gold passage]") for m in marks)
    # inline, quietly: a small mark after each sentence of the answer, its evidence on hover
    inline = [h.proto.body for h in at.get("html")]
    assert any('<sup title="supported · p.' in b and "evidence: " in b for b in inline), inline[:1]
    assert len(at.dataframe) >= 1  # the history table
    from lib.documents import metadata as M

    chosen = at.selectbox(key="ask_doc").value
    title = M.display_title(M.get(chosen, services.docs.engine), services.docs.get(chosen).name)
    hist = at.dataframe[-1].value
    assert hist["Documents"].iloc[0] == title  # the history says which document was asked, in words
    assert list(hist.columns)[:3] == ["Asked", "Question", "Documents"]  # sign-in off: no "By" (the one local user)


def test_benchmark_page_runs_sample_and_charts(services, sample_doc):
    at = page("benchmark.py").run()
    next(b for b in at.button if b.label == "Load the sample set (20 items)").click().run()
    assert any("20 items" in s.value for s in at.success)
    # the loaded items read as a table of questions with type, answer and page
    items = next(d.value for d in at.dataframe if "question" in d.value.columns)
    assert len(items) == 20 and {"type", "question", "expected answer", "page"} <= set(items.columns)
    assert items.iloc[0]["question"].startswith("Did the U.S. Fish and Wildlife Service participate")
    # the document by its title, not its file's name; no item ids (they are Validate's)
    assert set(items["document"]) == {"Continental United States (CONUS) Interceptor Site Final Environmental Impact "
                                      "Statement"} and "id" not in items.columns
    # generation: a small default plan, with its estimate, before anything runs
    plan = " ".join(m.value for m in at.markdown)
    assert "**Planned:** up to 6 items from 2 passages in 4 model calls" in plan and "estimated time" in plan
    at.multiselect(key="run_models").set_value(["local/extractive"]).run()
    at.multiselect(key="run_modes").set_value(["rag", "gold"]).run()
    at.number_input(key="run_limit").set_value(4).run()
    at.number_input(key="run_seed").set_value(-1).run()  # the first four, in order: two closed, two comparison
    run_plan = " ".join(m.value for m in at.markdown)
    assert "**Planned:** 8 answers (4 questions, 1 model, 2 context modes)" in run_plan, run_plan
    next(b for b in at.button if b.label == "Run").click().run()
    settle(at)  # the run is a background job
    assert not at.exception
    assert any("8 answers, 0 failures" in s.value for s in at.success), [s.value for s in at.success] + [e.value for e in at.error]
    assert len(charts(at)) >= 2  # open scores, position, faithfulness (the closed and type charts: too few)
    # a proxy-scored run: no published figures anywhere, a warning that says so, n and intervals in the tables
    assert not [d for d in at.dataframe if "GPT-4" in set(d.value.get("model", []))]
    assert any("token-F1 proxy (not RAGAS)" in w.value for w in at.warning)
    # two closed items: every closed cell is too small to read, so the section is one line, its table on a toggle;
    # the type × mode chart (all grey) is one line too
    # the baseline gives its two closed items no verdict (quotes only): no closed accuracy, said in one line
    assert any(c.value.startswith("No closed accuracy: 4 closed answer(s) came with no verdict (quotes only")
               for c in at.caption), [c.value for c in at.caption][:12]
    assert not [t for t in at.table if "Majority baseline (always 'yes')" in set(t.value.index)]
    tables = [t.value for t in at.table]
    open_t = next(t for t in tables if "Extractive baseline (no LLM)" in set(t.index))
    assert open_t.loc["Extractive baseline (no LLM)", "n"].tolist() == [2, 2]  # rag and gold, 2 open items each
    assert not [t for t in tables if "GPT-4" in set(t.index)]
    # rescoring scores the stored answers again, generating none: the same 8 answers, the same open scores
    next(b for b in at.button if b.label == "Rescore").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("8 answers, 0 failures" in s.value for s in at.success)
    again = next(t.value for t in at.table if "Extractive baseline (no LLM)" in set(t.value.index))
    assert again.loc["Extractive baseline (no LLM)", "n"].tolist() == [2, 2]
    # ... and reads no yes or no into the baseline's quotes: its closed answers still have no verdict
    assert any(c.value.startswith("No closed accuracy: 4 closed answer(s) came with no verdict (quotes only")
               for c in at.caption), [c.value for c in at.caption][:12]
    # resuming it says, in words, the configuration it will use (the stored run's, not the widgets')
    run_id = at.selectbox(key="results_run").value
    resume = next(s for s in at.selectbox if s.label == "Or resume a run")
    assert resume.format_func(run_id).startswith("Extractive baseline (no LLM) · Retrieved passages (RAG), Gold passage · 4 items · ")
    resume.set_value(run_id).run()
    assert any(i.value.startswith("Resuming uses that run's own configuration, not the choices above: models "
                                  "local/extractive; modes rag, gold; judge none.") for i in at.info), \
        [i.value for i in at.info]


def test_validate_two_reviewers_then_stats(tmp_path):
    from tests.review.test_annotations import identify

    items, _ = load_items(config.SAMPLE20)
    ann.add_items(items[:3], "apptest-set")
    for who, answer in (("Ada", "yes"), ("Ben", "no")):
        at = page("validate.py").run()
        identify(at, who)
        at.selectbox(key="review_source").set_value("apptest-set").run()
        for _ in range(3):
            # the label buttons, as a reviewer clicks them (keys 1, 3/4, 6)
            for key in ("b_type_correct_yes", f"b_answer_correct_{answer}", "b_proof_supports_yes",
                        f"b_support_{answer}"):
                at.button(key=key).click().run()
            save = next(b for b in at.button if b.label.startswith("Save and next"))
            assert not save.disabled
            save.click().run()
            assert not at.exception
        assert any("3 of 3 reviewed by you" in p.proto.text for p in at.get("progress"))
    at = page("validate.py").run()
    stats = at.dataframe[0].value.set_index("statistic")  # a column per question, a statistic per row
    row = stats["Answer correct"]
    # shown as text, two decimals, with "—" where a statistic does not apply (never "None")
    assert row["% agreement"] == "0.00" and stats["Proof supports answer"]["% agreement"] == "1.00"
    assert row["Fleiss' κ"].startswith("—") and row["κ reading"] == "too few items to read (n = 3)"
    assert row["items 2+ experts labelled"] == "3"
    correct = at.dataframe[1].value.set_index("of the items labelled")["Answer correct"]  # over other items: apart
    assert (correct["yes by either expert"], correct["yes by all experts"]) == ("1.00", "0.00")
    assert not (stats.astype(str) == "None").any().any()
    assert any("rest on 3 item(s)" in w.value for w in at.warning)
    # the support label (keys 8 / 9) was saved, and the Support checkers tab says how far that goes
    saved = [lb for lb in ann.labels() if lb.label == "sentences_supported" and lb.item_id in {i.id for i in items[:3]}]
    assert sorted((lb.annotator, lb.value) for lb in saved) == [("Ada", "yes")] * 3 + [("Ben", "no")] * 3
    support_rows = next(d.value for d in at.dataframe if "checker" in d.value.columns)
    offline = support_rows[support_rows["checker"] == "Offline checker"].iloc[0]
    assert offline["status"].startswith("uncalibrated")
    assert any("is **uncalibrated**" in w.value for w in at.warning)


def test_validate_presses_that_reach_the_server_together_act_on_the_item_shown():
    """Keys pressed close together reach the server in one run, their callbacks called in no set order. Clicked
    before one run here: each press acts on the item shown when it was pressed. A label and Save save that item
    whole; Save and Skip save it and then skip one; Save and All yes save the expert's own answers, not three yes;
    Save in the same run as a tab switch is not lost."""
    from tests.review.test_annotations import identify

    items, _ = load_items(config.SAMPLE20)
    ann.add_items(items[:6], "apptest-together")
    ids = [it.id for it in items[:6]]
    at = page("validate.py").run()
    identify(at, "Tess Together")
    at.selectbox(key="review_source").set_value("apptest-together").run()

    def heading() -> str:
        return next(m.value for m in at.markdown if m.value.startswith("#### Item "))

    def mine(item_id: str) -> dict[str, str]:
        return {lb.label: lb.value for lb in ann.labels() if lb.item_id == item_id and lb.annotator == "Tess Together"}

    order = [ann.items([i])[0].item_id for i in ann.batch_items(ann.create_batch("apptest-together", None, 0))]
    assert sorted(order) == sorted(ids) and heading() == "#### Item 1 of 6"
    # the save's callback may be called before the third label's: labels, then the save
    at.button(key="b_type_correct_yes").click().run()
    at.button(key="b_answer_correct_no").click().run()
    at.button(key="review_save").click()
    at.button(key="b_proof_supports_yes").click().run()
    assert mine(order[0]) == {"type_correct": "yes", "answer_correct": "no", "proof_supports": "yes"}
    assert heading() == "#### Item 2 of 6" and not at.error
    # Save and Skip together: item 2 saved, then one skipped
    for key in ("b_type_correct_no", "b_answer_correct_yes", "b_proof_supports_no"):
        at.button(key=key).click().run()
    at.button(key="review_skip").click()
    at.button(key="review_save").click().run()
    assert mine(order[1]) == {"type_correct": "no", "answer_correct": "yes", "proof_supports": "no"}
    assert heading() == "#### Item 4 of 6" and not mine(order[2])
    # Save and All yes together, the three answered: the expert's answers are saved, once
    for key in ("b_type_correct_yes", "b_answer_correct_unsure", "b_proof_supports_no"):
        at.button(key=key).click().run()
    at.button(key="review_all_yes").click()
    at.button(key="review_save").click().run()
    assert mine(order[3]) == {"type_correct": "yes", "answer_correct": "unsure", "proof_supports": "no"}
    assert heading() == "#### Item 5 of 6" and not mine(order[4])
    # Save in the same run as a tab switch (the review panel is not drawn in that run): saved all the same
    for key in ("b_type_correct_yes", "b_answer_correct_yes", "b_proof_supports_yes"):
        at.button(key=key).click().run()
    at.button(key="review_save").click()
    at.session_state["validate_tab"] = "Agreement"
    at.run()
    assert not any(m.value.startswith("#### Item ") for m in at.markdown)  # the panel was not drawn in that run
    assert mine(order[4]) == {"type_correct": "yes", "answer_correct": "yes", "proof_supports": "yes"}
    assert not at.exception


def test_enviroexam_results_and_run():
    at = page("enviroexam.py").run()
    assert not at.exception
    board = at.dataframe[0].value
    assert (board["source"] == "published (0-shot)").sum() == 31
    assert charts(at)
    at.multiselect(key="exam_courses").set_value(["environmental_science", "modern_biology"]).run()
    at.number_input(key="exam_limit").set_value(2).run()
    assert any("**Planned:** 4 question(s) over 2 course(s)" in m.value and "estimated time" in m.value
               for m in at.markdown)
    # said before the run: not ranked, why, and what a ranked run asks and costs here
    quick = next(i.value for i in at.info if i.value.startswith("**A quick look, not ranked:**"))
    assert "it asks 4 of the 726 test questions" in quick and "A ranked run asks all 726 test questions" in quick
    from lib.app import exam as exam_case

    said = quick.split("“Questions per course” 0, no course chosen):")[1]
    # a range where this machine has timed the model on the exam (earlier tests may have), else no figure
    assert said.startswith(" 726 still to ask with this model, ") and (
        "about " in said if exam_case.ranked_plan("local/smollm2-135m").estimate.measured else
        "its time not measured here yet (this quick run measures it)" in said), said
    next(b for b in at.button if b.label == "Run").click().run()
    settle(at)  # the run is a background job
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Questions"] == "4"
    at = page("enviroexam.py").run()
    board = at.dataframe[0].value
    assert (board["source"] == "run here").sum() == 0  # a limit-2 run is partial: never ranked with full runs
    assert (at.dataframe[1].value["questions"] == "4 of 4").any()  # it sits in the "Partial runs" table
    # each answer's time is stored, so the next estimate is measured, not guessed
    from lib.app import estimates

    assert estimates.exam_rate("local/smollm2-135m", 0, False).n >= 4
    # the quiz says how many are unanswered before scoring them wrong
    at.selectbox(key="quiz_course").set_value("environmental_science").run()
    next(b for b in at.button if b.label == "Score me").click().run()
    assert any("10 of 10 questions are unanswered" in w.value for w in at.warning) and not at.metric
    next(b for b in at.button if b.label == "Score me").click().run()
    assert any(m.label == "Your score" and m.value == "0%" for m in at.metric)
    # the run asked 2 of this course's questions: it is not set beside the visitor's 10
    assert any(c.value.startswith("Not compared, as they did not ask all of these questions: SmolLM2-135M")
               and re.search(r"asked [012] of these 10", c.value) for c in at.caption), [c.value[:90] for c in at.caption][1:]


def test_enviroexam_times_a_model_before_its_first_run_and_then_estimates():
    """Before a model has run the exam here with some settings, the page gives no figure; "Time it first" answers
    three questions as a real run, and the estimate is then a range from their measured times."""
    from sqlalchemy import delete

    from lib.app import estimates
    from lib.storage import get_engine, tables

    model = "local/smollm2-135m"
    t = tables.exam_answers
    with get_engine().begin() as c:  # this test's settings (5-shot) measured by no one yet
        c.execute(delete(t).where(t.c.model == model, t.c.shots == 5, t.c.cot == 0))
    at = page("enviroexam.py").run()
    at.selectbox(key="exam_model").set_value(model).run()
    at.radio(key="exam_shots").set_value(5).run()
    planned = lambda: next(m.value for m in at.markdown if m.value.startswith("**Planned:**"))  # noqa: E731
    assert "not measured here yet" in planned() and "about " not in planned(), planned()
    at.button(key="exam_time_it").click().run()
    settle(at)  # the timing is a background job
    assert not at.exception
    rate = estimates.exam_rate(model, 5, False)
    assert rate.n == 3 and rate.seconds > 0  # three answers, each timed
    assert re.search(r"estimated time\*\* about [\d.]+–[\d.]+ (s|min) \\\(from the median time", planned()), planned()
    assert not [b for b in at.button if b.key == "exam_time_it"]  # measured: no need to time it again


def test_validate_judge_tab_labels_the_queue_and_shows_what_failed(monkeypatch):
    """The Validate page's Judge tab against a loopback OpenAI server: replies that are not the JSON asked for fail
    the items (counted, shown in the judge's table with their reason); asked again, the items are labelled. (The
    items are judged in parallel, so every reply in a step is the same.)"""
    from lib.models import registry
    from tests.fake_llm_server import openai_loopback
    from tests.review.test_judge_review import make_items, reply

    items = [it.__class__(**{**it.as_dict(), "id": f"JT{it.id}"}) for it in make_items(2)]
    ann.add_items(items, "judge-tab-set")
    with openai_loopback(monkeypatch, "sk-test-validate-judge-0000", "gpt-judge") as srv:
        judge = registry.get("openai").id
        srv.script.extend([("ok", "I think the answer is correct.")] * 2)
        at = page("validate.py").run()
        at.selectbox(key="judge_model").set_value(judge).run()
        at.selectbox(key="judge_source").set_value("judge-tab-set").run()
        assert any(c.value.startswith("0 of 2 items already labelled by this judge") for c in at.caption)
        at.button(key="judge_run").click().run()
        assert not at.exception, at.exception
        assert any(s.value == "0 labelled, 2 failed, 0 already done." for s in at.success), [s.value for s in at.success]
        assert at.selectbox(key="judge_shown").value == judge
        table = next(d.value for d in at.dataframe if "raw" in d.value.columns)
        mine = table[table["item_id"].isin({"JTI0", "JTI1"})]
        assert list(mine["status"]) == ["failed"] * 6  # each of the three labels of each item
        assert all("not valid JSON" in e for e in mine["error"])
        counted = f"The judge's labels ({len(table)} rows, {(table['status'] == 'failed').sum()} failed)"
        assert any(e.label == counted for e in at.expander), [e.label for e in at.expander]
        srv.script.extend([("ok", reply())] * 2)
        at.button(key="judge_run").click().run()
        assert any(s.value == "2 labelled, 0 failed, 0 already done." for s in at.success), [s.value for s in at.success]
        table = next(d.value for d in at.dataframe if "raw" in d.value.columns)
        mine = table[table["item_id"].isin({"JTI0", "JTI1"})]
        assert len(mine) == 6 and set(mine["status"]) == {"ok"} and set(mine["value"]) == {"yes"}

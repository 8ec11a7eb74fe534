"""The Ask page's flow: Run takes the question the user typed on the first click (and on Ctrl+Enter), and the
page's controls come back as they were after a visit to another page, so they never disagree with the answer."""
from streamlit.testing.v1 import AppTest

from lib.app import ask as ask_case
from lib.app import estimates
from lib.models import registry
from lib.qa import ask as ask_lib
from lib.qa.ask import load_history
from pages import _ask_demo
from pages._ask_state import GOLD_OWN, gold_key
from tests.conftest import ROOT

T = 180  # seconds: the first run loads the embedding model


def _asked_by_the_baseline(mode: str, question: str) -> AppTest:
    """Ask, run with the extractive baseline in one context mode on ``question``."""
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=T)
    at.switch_page("pages/ask.py").run()
    at.multiselect(key="ask_models").set_value(["local/extractive"]).run()
    at.multiselect(key="ask_modes").set_value([mode]).run()
    at.text_area(key="question").input(question)
    next(b for b in at.button if b.label == "Run").click().run()
    return at


def test_run_is_sent_with_the_question_it_runs():
    """A browser sends a text box's value when it loses focus, so a Run button outside the question's form is
    disabled until then and its first click is lost. Run is the question's form's submit button: the click (or
    Ctrl+Enter in the box) sends the typed question with it. With no question yet, Run says what to do."""
    at = AppTest.from_file(str(ROOT / "pages" / "ask.py"), default_timeout=T).run()
    assert not at.exception
    box = at.text_area(key="question")
    run = next(b for b in at.button if b.label == "Run")
    assert box.proto.form_id and run.proto.form_id == box.proto.form_id and not run.disabled
    assert run.proto.is_form_submitter
    run.click().run()
    assert not at.exception
    assert any("Type a question first" in w.value for w in at.warning), [w.value for w in at.warning]
    assert "last_grid" not in at.session_state  # nothing ran


def test_ask_keeps_its_settings_across_pages(services, sample_doc):
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=T)
    at.switch_page("pages/ask.py").run()
    assert not at.exception
    at.radio(key="ask_doc_how").set_value("All documents").run()
    at.multiselect(key="ask_models").set_value(["local/extractive"]).run()
    at.multiselect(key="ask_modes").set_value(["rag", "gold"]).run()
    at.slider(key="ask_k").set_value(5).run()
    at.text_area(key="question").input("Is a permit needed?")
    next(b for b in at.button if b.label == "Run").click().run()
    at.switch_page("pages/home.py").run()
    assert not at.exception
    at.switch_page("pages/ask.py").run()
    assert not at.exception
    assert at.radio(key="ask_doc_how").value == "All documents"
    assert at.multiselect(key="ask_models").value == ["local/extractive"]
    assert at.multiselect(key="ask_modes").value == ["rag", "gold"]
    assert at.slider(key="ask_k").value == 5
    assert at.text_area(key="question").value == "Is a permit needed?"
    assert not at.warning or all("Session State" not in w.value for w in at.warning)


def test_the_demo_is_one_compact_grid_with_more_behind_a_toggle(services):
    """Three questions × six systems: each cell a short answer and its support mark; the whole answer, its
    support and its sources open from the cell's "more" toggle."""
    at = AppTest.from_file(str(ROOT / "pages" / "ask.py"), default_timeout=600).run()
    demo = next(b for b in at.button if b.label.startswith("▶ One-click demo"))
    # the time it will take is said first: a stated rough guess while a system has no measured calls on this
    # store (the session's store may already hold calls from earlier tests), else the measured median
    est = estimates.benchmark(len(_ask_demo.DEMO_ITEMS), list(registry.OFFLINE_DEFAULTS), _ask_demo.DEMO_MODES, like_ask=True)
    if est.measured:  # a range from this machine's times, said to be partly a guess where it is
        assert "about " in demo.help and ("rough guess" in demo.help) == est.guessed, (est.guessed, demo.help)
    else:  # nothing measured yet: no figure
        assert "not measured here yet for" in demo.help and "about " not in demo.help, demo.help
    demo.click().run()
    assert not at.exception
    again = next(b for b in at.button if b.label.startswith("▶ One-click demo")).help
    assert "from the median time of each model's recent calls on this machine" in again, again  # measured now
    more = [t for t in at.toggle if t.label == "more"]
    assert len(more) == 18, len(more)
    assert any(c.value.startswith("The demo's 18 answers took ") for c in at.caption)
    marks = [c.value for c in at.caption if " s" in c.value and ("supported" in c.value or c.value.startswith("–"))]
    assert len(marks) == 18, marks
    assert sum(m.startswith("– no sources") for m in marks) == 6  # the six no-context cells
    assert all(len(t.value) <= 102 for t in at.text), [t.value for t in at.text if len(t.value) > 102][:1]
    assert not [c for c in at.caption if c.value.startswith("Sources")]  # sources wait behind "more"
    # "more" on the extractive baseline's RAG answer to Q2: the whole answer, its support line and its sources
    key = "demo_more_EIS00017_local/extractive_rag"
    at.toggle(key=key).set_value(True).run()
    assert not at.exception
    assert any(c.value.startswith("Sources: p.") for c in at.caption)
    assert any(c.value.startswith("Support (offline check): ") for c in at.caption)
    # Q2 asked again in the box gets the same answers: drawn in the grid too, with "more" open in the demo, the
    # two copies' widgets keep apart (the same keys raised Streamlit's duplicate-key error)
    rows = [ask_lib.AskResult(**d) for d in at.session_state["demo"]["results"]["EIS00017"]]
    at.session_state["last_grid"] = ask_case.shown(ask_case.Settings(
        rows[0].question, sorted({r.model for r in rows}), _ask_demo.DEMO_MODES, at.session_state["demo"]["doc_id"],
        3, False, False), rows)
    at.run()
    assert not at.exception, at.exception
    assert sum(c.value.startswith("Sources: p.") for c in at.caption) >= 2  # the grid's and the demo's


def test_reopen_puts_the_controls_back_and_a_change_is_named(services, sample_doc):
    """An answer on screen never disagrees with the controls unseen: a closed question's own toggle is kept with
    it; Reopen shows a saved answer and sets every control as that answer was asked; a control moved since is
    named over the answer."""
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=T)
    at.switch_page("pages/ask.py").run()
    at.radio(key="ask_doc_how").set_value("All documents").run()
    at.multiselect(key="ask_models").set_value(["local/extractive"]).run()
    at.multiselect(key="ask_modes").set_value(["rag"]).run()
    at.slider(key="ask_k").set_value(4).run()
    at.text_area(key="question").input("Is a permit needed for the launch site?")
    next(b for b in at.button if b.label == "Run").click().run()
    assert not at.exception
    assert at.toggle(key="ask_closed").value is True  # detected from the question
    assert any(c.value == "Answered over all documents · 4 passages per search (k) · closed (yes/no)"
               for c in at.caption), [c.value for c in at.caption][:8]
    at.toggle(key="ask_closed").set_value(False)  # the user says it is open, and runs (the switch is in the form)
    next(b for b in at.button if b.label == "Run").click().run()
    at.switch_page("pages/home.py").run()
    at.switch_page("pages/ask.py").run()
    assert at.toggle(key="ask_closed").value is False  # the user's choice is kept with its question
    assert any(c.value == "Answered over all documents · 4 passages per search (k)" for c in at.caption)
    at.slider(key="ask_k").set_value(5).run()
    assert any(c.value.startswith("⚠️ Since this answer you changed: k.") for c in at.caption), [
        c.value for c in at.caption][:8]
    at.slider(key="ask_k").set_value(4).run()

    # a second question over one document, then reopen the first
    at.radio(key="ask_doc_how").set_value("One document").run()
    at.slider(key="ask_k").set_value(2).run()
    at.text_area(key="question").input("What are the alternatives?")
    next(b for b in at.button if b.label == "Run").click().run()
    assert not at.exception and at.toggle(key="ask_closed").value is False
    assert not any(c.value.startswith("⚠️ Since") for c in at.caption)
    first = next(h.batch_id for h in load_history() if h.question.startswith("Is a permit needed"))
    at.selectbox(key="reopen").set_value(first).run()
    next(b for b in at.button if b.label == "Reopen this question").click().run()
    assert not at.exception
    assert at.text_area(key="question").value == "Is a permit needed for the launch site?"
    assert at.radio(key="ask_doc_how").value == "All documents"
    assert at.slider(key="ask_k").value == 4
    assert at.multiselect(key="ask_modes").value == ["rag"]
    assert at.toggle(key="ask_closed").value is True  # as it was asked
    assert not any(c.value.startswith("⚠️ Since") for c in at.caption), [c.value for c in at.caption][:8]
    assert not at.warning or all("Session State" not in w.value for w in at.warning)


def test_the_closed_switch_turned_before_run_goes_with_its_question(services, sample_doc):
    """Closed sits in the question's form: a new question sets it from its words when run, unless the switch was
    turned before Run; then the user's choice is what the answer is asked with, and it stays so."""
    at = _asked_by_the_baseline("none", "Is a permit needed for the launch site?")
    assert not at.exception and at.toggle(key="ask_closed").value is True  # set from the words
    asked = lambda: next(c.value for c in at.caption if c.value.startswith("Answered"))  # noqa: E731
    assert asked().endswith("closed (yes/no)"), asked()
    # a new yes/no-looking question, the switch turned off before Run: asked as open, and the switch stays off
    at.text_area(key="question").input("Is a permit needed for the landing site?")
    at.toggle(key="ask_closed").set_value(False)
    next(b for b in at.button if b.label == "Run").click().run()
    assert not at.exception and at.toggle(key="ask_closed").value is False
    assert "closed" not in asked(), asked()
    assert not any(c.value.startswith("⚠️ Since") for c in at.caption)
    # the next new question, the switch left as it is: set from its words again
    at.text_area(key="question").input("Is an air permit needed for the site?")
    next(b for b in at.button if b.label == "Run").click().run()
    assert not at.exception and at.toggle(key="ask_closed").value is True
    assert asked().endswith("closed (yes/no)"), asked()


def test_the_gold_passage_is_kept_with_its_answer_and_reopened(services):
    """The gold passage an answer was given is part of what it was asked with: edited since, the caption names it;
    Reopen puts it back in the box."""
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=T)
    at.switch_page("pages/ask.py").run()
    at.multiselect(key="ask_models").set_value(["local/extractive"]).run()
    at.multiselect(key="ask_modes").set_value(["gold"]).run()
    passage = "The permit for the launch site was issued by the state in 2016. Monitoring continues each spring."
    at.text_area(key=gold_key(GOLD_OWN)).input(passage).run()
    at.text_area(key="question").input("When was the permit for the launch site issued?")
    next(b for b in at.button if b.label == "Run").click().run()
    assert not at.exception
    assert at.session_state["last_grid"].gold == passage
    assert not any(c.value.startswith("⚠️ Since") for c in at.caption)
    at.text_area(key=gold_key(GOLD_OWN)).input("Another passage about something else entirely.").run()
    assert any(c.value.startswith("⚠️ Since this answer you changed: gold passage.") for c in at.caption), \
        [c.value for c in at.caption][:8]
    first = next(h.batch_id for h in load_history() if h.question.startswith("When was the permit"))
    at.selectbox(key="reopen").set_value(first).run()
    next(b for b in at.button if b.label == "Reopen this question").click().run()
    assert not at.exception
    assert at.text_area(key=gold_key(GOLD_OWN)).value == passage
    assert not any(c.value.startswith("⚠️ Since") for c in at.caption), [c.value for c in at.caption][:8]
    assert not at.warning or all("Session State" not in w.value for w in at.warning)


def test_a_closed_answers_verdict_is_checked_and_the_baseline_gives_none(services):
    """Issue 36: a yes or no is a claim too. The extractive baseline, which cannot decide, says "quotes only" (on
    main it answered "No." here, from the "not" in its best quote); SmolLM2's verdict is checked against the gold
    passage: a YES is contradicted by it, a NO agrees with it."""
    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=T)
    at.switch_page("pages/ask.py").run()
    at.multiselect(key="ask_models").set_value(["local/extractive", "local/smollm2-135m"]).run()
    at.multiselect(key="ask_modes").set_value(["gold"]).run()
    at.text_area(key=gold_key(GOLD_OWN)).input(
        "The proposed site is not located within the 100-year floodplain. Stormwater would be managed on site "
        "through two detention basins.").run()
    at.text_area(key="question").input("Is the proposed site located within the 100-year floodplain?")
    next(b for b in at.button if b.label == "Run").click().run()
    assert not at.exception
    md = [m.value for m in at.markdown]
    assert any("**quotes only**" in v for v in md), md
    verdicts = [v for v in md if v.startswith("Verdict: :")]
    assert len(verdicts) == 1, verdicts  # SmolLM2's; the baseline has none
    if "**YES**" in verdicts[0]:
        assert any(w.value.startswith("The evidence contradicts this verdict: the gold passage says")
                   for w in at.warning), [w.value for w in at.warning]
    else:
        assert "**NO**" in verdicts[0]
        assert any(c.value.startswith("The verdict agrees with the gold passage") for c in at.caption)


def test_the_model_server_is_checked_when_asked_from_the_sidebar(monkeypatch):
    """Ask's sidebar shows a server model as not asked yet (no network on a page draw); "Check the model server"
    asks it now, and the list shows what it serves, or why the model is not available."""
    from lib.models import server_facts
    from tests.fake_llm_server import FakeLLMServer

    with FakeLLMServer() as srv:
        monkeypatch.setenv("OPENAI_COMPAT_BASE_URL", srv.url + "/v1")
        monkeypatch.setenv("OPENAI_COMPAT_MODEL", "llama3")
        registry.reset()
        server_facts.forget()
        try:
            at = AppTest.from_file(str(ROOT / "pages" / "ask.py"), default_timeout=T).run()
            shown = " ".join(m.value for m in at.sidebar.markdown)
            assert "llama3 (OpenAI-compatible server)** — model llama3 \\(the server not asked yet\\)" in shown
            next(b for b in at.sidebar.button if b.label == "Check the model server").click().run()
            assert not at.exception
            shown = " ".join(m.value for m in at.sidebar.markdown)
            assert "🟢 **llama3 (OpenAI-compatible server)** — model llama3" in shown and "not asked" not in shown
            assert "llama3 (OpenAI-compatible server)" in at.multiselect(key="ask_models").options
            srv.served = ["mistral"]  # the server now serves another model: asked again at once, not in 15 s
            next(b for b in at.sidebar.button if b.label == "Check the model server").click().run()
            shown = " ".join(m.value for m in at.sidebar.markdown)
            assert "⚪ **llama3 (OpenAI-compatible server)** — the server does not list 'llama3'" in shown
            assert "llama3 (OpenAI-compatible server)" not in at.multiselect(key="ask_models").options
        finally:
            registry.reset()
            server_facts.forget()


def test_a_server_model_found_down_stays_chosen_and_answers_once_back(monkeypatch):
    """A call finds the server gone: the model stays in Models (marked not answering) and chosen, so nothing the
    user picked is dropped; once the server is back, Run asks it again first and answers, with no reload."""
    from lib.models import server_facts
    from tests.fake_llm_server import FakeLLMServer

    monkeypatch.setenv("NEPAQA_PROVIDER_RETRIES", "0")
    with FakeLLMServer() as srv:
        port = srv.httpd.server_address[1]
        monkeypatch.setenv("OPENAI_COMPAT_BASE_URL", srv.url + "/v1")
        monkeypatch.setenv("OPENAI_COMPAT_MODEL", "llama3")
        registry.reset()
        server_facts.forget()
        at = AppTest.from_file(str(ROOT / "pages" / "ask.py"), default_timeout=T).run()
        at.multiselect(key="ask_models").set_value(["compat/llama3"]).run()
        at.multiselect(key="ask_modes").set_value(["none"]).run()
        at.text_area(key="question").input("Did USFWS take part?")
    try:
        next(b for b in at.button if b.label == "Run").click().run()  # the server has stopped
        assert not at.exception
        assert at.multiselect(key="ask_models").value == ["compat/llama3"]  # still chosen
        assert "llama3 (OpenAI-compatible server) (not answering when last asked)" in at.multiselect(key="ask_models").options
        shown = " ".join(m.value for m in [*at.markdown, *at.error, *at.warning])
        assert f"the server at http://127.0.0.1:{port}/v1 does not answer" in shown.replace("\\", "")
        assert "compat/llama3" not in shown and "you changed" not in shown
        with FakeLLMServer(port=port) as again:
            again.default = ("ok", "Yes, USFWS took part.")
            next(b for b in at.button if b.label == "Run").click().run()
            assert not at.exception
            shown = " ".join(m.value for m in [*at.markdown, *at.error, *at.warning])
            assert "Verdict: :green-background[**YES**]" in shown and "does not answer" not in shown  # answered
            assert "🟢 **llama3 (OpenAI-compatible server)** — model llama3" in shown
    finally:
        registry.reset()
        server_facts.forget()


def test_opening_a_quotes_page_highlights_the_quoted_words_not_its_whole_sentence_of_evidence(services, sample_doc):
    """A title page or a list has no full stops, so the evidence a quote is checked against can be a whole page.
    Opening the page highlights the quoted words themselves, where the page holds them as written."""
    at = _asked_by_the_baseline("rag", "What is the title of this environmental impact statement?")
    assert not at.exception, at.exception
    opens = [t for t in at.toggle if t.label.startswith("Open ") and t.label.endswith("with the evidence highlighted")]
    assert opens, [t.label for t in at.toggle]
    opens[0].set_value(True).run()
    assert not at.exception, at.exception
    shown = [c.value for c in at.caption if c.value.startswith("Page ")]
    assert shown and shown[0].endswith(" · the quoted words highlighted"), shown

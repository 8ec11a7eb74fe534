"""Ask: one question, several models × context modes, side by side."""

import pandas as pd
import streamlit as st

from lib.app import accounts
from lib.app import ask as ask_case
from lib.core import QUOTES_ONLY, access, csv_safe, looks_closed
from lib.models import registry
from lib.qa import MODE_LABELS, MODES, support
from lib.qa import ask as ask_lib
from pages import _support_view as support_view
from pages._ask_demo import demo_button, demo_section
from pages._ask_sources import cell_key, locator, render_sources
from pages._ask_state import GOLD_OWN, caption, gold_key, reopen
from pages._gate import through_gate
from pages._ui import KEPT, keep, plain, scope_picker, services, table, titled, words_only_note

through_gate()  # a page reached without the app's sign-in gate goes back through it

st.title("💬 Ask")
st.caption(f"One question, several models and context modes at once. **{MODE_LABELS['none']}**: the model's own "
           f"knowledge · **{MODE_LABELS['pdf']}**: the whole document, cut to the model's window · "
           f"**{MODE_LABELS['rag']}**: the passages retrieval finds · **{MODE_LABELS['gold']}**: a passage you give.")

svc = services()
words_only_note(svc)
statuses = registry.status_all()
# a configured model whose server was last found not answering stays choosable (and chosen): Run asks its server
# again first, and its card says why if it is still down
labels = {p.id: p.label if ok else f"{p.label} (not answering when last asked)"
          for p, ok, _ in statuses if (ok or (p.configured() and not p.local))
          and (p.local or access.allowed(access.Action.CONNECTED_MODEL))}  # connected models: analysts and up


def label_of(model_id: str) -> str:
    """Our label for a model, as Markdown; an id we do not know (from stored history) is shown as typed."""
    return labels.get(model_id) or plain(model_id)


doc_names = titled(svc.docs.list()) | ask_case.eis_titles(svc)


def scope_label(ids: object) -> str:
    """A saved scope in words: the document's title, "all documents", or several titles."""
    return ask_case.scope_label(ids, doc_names)


with st.sidebar:
    st.subheader("Models")
    for p, ok, why in statuses:
        st.markdown(f"{'🟢' if ok else '⚪'} **{p.label}** — {plain(why)}")
    if any(p.family == "compat" for p, _, _ in statuses) and st.button(
            "Check the model server", help="Ask the server now which models it serves, and its window"):
        registry.recheck_servers()
        st.rerun()
    st.caption("Add keys or URLs in `.streamlit/secrets.toml` or the environment to enable cloud and server models.")

doc_id, balanced = scope_picker(key="ask_doc")

demo_button([m for m in registry.OFFLINE_DEFAULTS if m in labels])

# The question and Run are one form: the click (or Ctrl+Enter in the box) sends the typed question with it, so the
# first click runs (a text box outside a form sends its value only when it loses focus).
if "question" not in st.session_state and "_kept_question" in st.session_state:
    st.session_state["question"] = st.session_state["_kept_question"]  # back from another page: the last question
if "ask_closed" not in st.session_state and KEPT + "ask_closed" in st.session_state:
    st.session_state["ask_closed"] = st.session_state[KEPT + "ask_closed"]  # back from another page: as it was
with st.form("ask_form", border=False):
    question = st.text_area("Question", key="question", height=80,
                            placeholder="e.g. What mitigation is proposed for wetlands at the selected site?")
    # Closed is sent with the question it is about. A new question sets it from its words, unless the switch was
    # turned before this Run (it differs from what it showed): then the user's choice stands.
    if st.session_state.get("_closed_for") != question:
        sent, shown = st.session_state.get("ask_closed"), st.session_state.get("_closed_shown")
        turned = sent is not None and shown is not None and sent != shown
        st.session_state["ask_closed"] = bool(sent) if turned else (looks_closed(question) if question else False)
        st.session_state["_closed_for"] = question
    f1, f2 = st.columns([1, 4], vertical_alignment="center")
    asked = f1.form_submit_button("Run", type="primary")  # the question box says Ctrl+Enter runs it too
    closed = f2.toggle("Closed (yes/no) question", key="ask_closed",
                       help="Set from the question when you run it. Turn it on or off before Run if that is wrong.")
st.session_state[KEPT + "ask_closed"] = st.session_state["_closed_shown"] = closed
if asked:
    st.session_state["_kept_question"] = question
# the models' names are long: their box has the page's width, so two or three of them show whole
models = st.multiselect("Models", list(labels), format_func=labels.get, **keep(
    "ask_models", lambda v: set(v or []) <= set(labels),
    default=[m for m in registry.OFFLINE_DEFAULTS if m in labels]))
c2, c3 = st.columns(2)
modes = c2.multiselect("Context modes", MODES, format_func=MODE_LABELS.get,
                       **keep("ask_modes", lambda v: set(v or []) <= set(MODES), default=["none", "rag"]))
k = c3.slider("k (RAG chunks)", 1, 10, **keep("ask_k", value=3))

gold = None
if "gold" in modes:
    passages = ask_case.gold_choices()
    pick = st.selectbox("Gold passage from a NEPAQuAD item (or paste below)", [GOLD_OWN, *passages], key="gold_pick")
    if gold_key(pick) not in st.session_state:  # first shown: the item's passage (set once, so no value= clash)
        st.session_state[gold_key(pick)] = passages.get(pick, "")
    gold = st.text_area("Gold passage", height=150, key=gold_key(pick))


def render_cell(r: ask_lib.AskResult, where: str = "grid") -> None:
    """One answer in full; ``where`` ("grid" or "demo") keeps its widget keys apart from the same answer
    drawn elsewhere on the page (a demo question asked again in the box gets the same answers)."""
    with st.container(border=True):
        st.markdown(f"**{label_of(r.model)}** · {MODE_LABELS.get(r.mode) or plain(r.mode)}")
        if r.error:
            st.error(plain(r.error), icon="⚠️")  # a server's message is untrusted text
            return
        report = r.support(svc.docs.pages)  # model output is shown as text (escaped), never as Markdown
        if r.closed and r.verdict == QUOTES_ONLY:
            st.markdown("Verdict: none — **quotes only** (this model quotes the passages and cannot decide yes or no)")
        elif r.closed and r.verdict:
            colour = {"yes": "green", "no": "red"}.get(r.verdict, "gray")
            st.markdown(f"Verdict: :{colour}-background[**{plain(r.verdict.upper())}**]")
            vc = report.verdict_check if report else None
            if vc and vc.get("status") == support.CONTRADICTED:
                st.warning(f"The evidence contradicts this verdict: {plain(vc.get('page') or 'the passage')} says "
                           f"“{plain(vc.get('evidence', '')[:300])}”, which reads as {plain(vc['implied']).upper()}.",
                           icon="⚠️")
            elif vc and vc.get("status") == support.AGREES:
                st.caption(f"The verdict agrees with {plain(vc.get('page') or 'the passage')}: "
                           f"“{plain(vc.get('evidence', '')[:200])}”")
        if not (r.answer or "").strip():
            st.warning("The model returned no text for this question. Try another model, or ask again.", icon="∅")
        support_view.marked_answer(r.answer or "", report.marks() if report else [])
        if r.truncated:
            st.warning(r.notice(), icon="✂️")
        if r.cut_at and r.closed:
            st.caption(f"✂️ The explanation stops at the {r.cut_at:,}-token cap of yes/no answers; the verdict came first.")
        elif r.cut_at:
            st.info(f"The answer reached this model's cap of {r.cut_at:,} tokens and stops there, not where the "
                    "model would have ended. NEPAQA_ANSWER_TOKENS sets a longer cap.", icon="✂️")
        # what was sent and counted is a detail: one hover away
        st.caption(f"Answered in {r.seconds:.1f} s", help=f"{r.tokens_in:,} tokens in · {r.tokens_out:,} out · "
                   f"{ask_case.sent_options(r.model, r.closed)}"
                   + (f" · verdict by {ask_lib.VERDICT_SOURCES.get(r.verdict_source) or plain(r.verdict_source)}" if r.verdict_source else ""))
        render_support(r, where)
        if r.mode == "rag" and r.comparison and r.comparison.why:  # a comparison question: each document's passages from its own search
            names = [d.name for d in r.comparison.documents]
            st.caption(f"Searched only {plain(names[0])}: the question names it" if len(names) == 1 else
                       "Compared: " + plain("; ".join(names)) + " — each document's passages come from a search "
                       "of that document")
        if r.mode == "rag" and r.contexts:
            render_sources(r, where)


def render_support(r: ask_lib.AskResult, where: str = "grid") -> None:
    """Under the answer, quietly: one line saying how well its sources back it; on click each sentence with its
    mark, evidence and what differs, and its cited page opened with the evidence highlighted."""
    report = r.support(svc.docs.pages)
    if report is None:
        if r.mode == "pdf" and not r.error and (r.answer or "").strip():
            st.caption("Support: not checked — this answer was kept without the pages its window held")
        return
    support_view.summary_line(report.summary(), report.checker)
    support_view.sentence_details(report.marks(), cell_key(r, where) + "_sv", locator(r), report.citations,
                                  numbered=r.mode != "pdf")


def render_grid(results: list[ask_lib.AskResult], model_ids: list[str], mode_ids: list[str]) -> None:
    by_cell = {(r.model, r.mode): r for r in results}
    for m in model_ids:
        cols = st.columns(len(mode_ids))
        for col, mode in zip(cols, mode_ids, strict=True):
            with col:
                r = by_cell.get((m, mode))
                if r is None:
                    st.container(border=True).caption(f"{label_of(m)} · {MODE_LABELS[mode]}: waiting…")
                else:
                    render_cell(r)


def run_grid(settings: ask_case.Settings) -> ask_case.Grid:
    """Draw the grid of waiting cells, then fill each cell the moment its answer arrives."""
    model_ids, mode_ids = settings.models, settings.modes
    total, done = len(model_ids) * len(mode_ids), [0]
    bar = st.progress(0.0, text="Starting…")
    # a cell's waiting line and streamed text go in one placeholder, its answer in another under it, and the first
    # is emptied when the answer comes: an answer drawn over the streamed card in the same place kept the streamed
    # lines under it until the whole run ended (Streamlit's browser keeps a replaced container's extra children)
    live, final = {}, {}
    for m in model_ids:
        cols = st.columns(len(mode_ids))
        for col, mode in zip(cols, mode_ids, strict=True):
            live[(m, mode)], final[(m, mode)] = col.empty(), col.empty()
            live[(m, mode)].container(border=True).caption(f"{label_of(m)} · {MODE_LABELS[mode]}: waiting…")

    def on_result(r: ask_lib.AskResult) -> None:
        done[0] += 1
        bar.progress(min(done[0] / total, 1.0), text=f"{done[0]} of {total} answers")
        live[(r.model, r.mode)].empty()
        with final[(r.model, r.mode)].container():
            render_cell(r)

    def on_partial(model: str, mode: str, text: str) -> None:  # a streaming model's answer so far
        with live[(model, mode)].container(border=True):
            st.markdown(f"**{label_of(model)}** · {MODE_LABELS.get(mode) or plain(mode)}")
            st.text(text + " ▌")  # as text, never Markdown
            st.caption("answering…")

    grid = ask_case.run(settings, svc, on_result=on_result, on_partial=on_partial)
    bar.empty()
    return grid


settings = ask_case.Settings(question or "", models, modes, doc_id, k, closed, balanced, gold)
problem = settings.problem() if asked else None
no_document = settings.missing_document() if asked and problem is None else None
if problem is not None:
    st.warning(problem, icon="✍️")
if no_document is not None:  # not the last answer under it: it would read as this question's
    st.error(no_document)
elif asked and problem is None:
    # The question, as text, where the last answers' block was: an element in a block's place drops it at once.
    # (A block drawn in a block's place keeps the old one's contents on screen, greyed, until the run ends: the last
    # question's answers showed under the new question's cells while they were answered.)
    st.text(settings.question)
    with st.container():
        st.session_state["last_grid"] = run_grid(settings)
    st.rerun()  # drawn again from the session: no half-written streaming text is left on screen
elif st.session_state.get("last_grid"):
    grid = st.session_state["last_grid"]
    with st.container():  # one block, which the next run's question text replaces
        st.text(grid.question)
        caption(grid, settings, scope_label)
        render_grid(grid.rows, grid.models, grid.modes)
    # in the place of the asking run's streamed block (it came second, after the question's text): dropped at once,
    # not left on screen beside this one until the page's run ends (the tour saw 8 answers for 4 on a busy machine)
    st.empty()


demo_section([m for m in registry.OFFLINE_DEFAULTS if m in labels], label_of, lambda r: render_cell(r, "demo"))

st.divider()
st.subheader("History")
hist = ask_lib.load_history()
if not hist:
    st.caption("Questions you ask are kept here, with their answers, for you to reopen or download.")
else:
    table(pd.DataFrame(ask_case.history_table(hist, labels, doc_names)), hide_index=True, width="stretch",
          height=240, long=["Question", "Documents"])
    st.caption("One row per question. Reopen one below to read its answers; the downloads hold every answer.")
    d1, d2 = st.columns(2)
    d1.download_button("Download CSV", accounts.download("the Ask history (CSV)", lambda: csv_safe.to_csv(pd.DataFrame(
        ask_lib.export_rows(hist)))), "ask_history.csv",
                       "text/csv")
    d2.download_button("Download JSON", accounts.download("the Ask history (JSON)", lambda: ask_lib.export_json(hist)),
                       "ask_history.json", "application/json")
    choices = ask_case.history_choices(hist, doc_names)
    st.selectbox("Reopen", list(choices), format_func=choices.get, key="reopen")  # the page's width: a question fits
    picked = next((h for h in hist if h.batch_id == st.session_state.get("reopen")), None)
    if picked is not None and picked.question not in choices.get(picked.batch_id, ""):  # shortened: here whole
        st.caption(plain(picked.question))
    # the callback reads the pick from the session (set before callbacks run), not from args fixed when the
    # button was drawn: a pick and a click sent together once reopened the question picked before
    st.button("Reopen this question", on_click=lambda: reopen(st.session_state["reopen"], set(labels), set(doc_names)),
              help="Shows that answer and puts the controls back as it was asked")

"""Ask's one-click demo: three NEPAQuAD questions of the sample EIS × the offline systems, shown as one compact
grid (a column per question, a row per system); each cell a short answer with its support mark, and the whole
answer, its support and its sources one "more" toggle away."""
from __future__ import annotations

import re
import time
from collections.abc import Callable

import streamlit as st

from lib.app import ask as ask_case
from lib.app import estimates
from lib.core import clip, config
from lib.evaluation.benchmark import load_sample_items
from lib.models import registry
from lib.qa import MODE_LABELS, support
from lib.qa import ask as ask_lib
from pages._ui import plain, run_safely, services

DEMO_ITEMS = ("EIS00001", "EIS00017", "EIS00111")  # closed, recall, process: each with its gold passage
DEMO_MODES = ["none", "rag", "gold"]  # full PDF takes ~14 s a cell with SmolLM2 here: too slow for a demo
DEMO_NOTES = {
    registry.SMOLLM2: "a tiny language model (135 million parameters) running on this machine; it writes fluent "
                      "sentences but is often wrong: a floor, not an advisor.",
    registry.EXTRACTIVE: "no language model: it quotes the two whole sentences of the context closest to the "
                         "question, with their pages; it cannot answer without a context.",
}
SHORT = 100  # characters of an answer a cell shows before "more"


def estimate(models: list[str]) -> estimates.Estimate:
    """The demo's answers estimated from each model's recent Ask answers on this machine (with their search)."""
    return estimates.benchmark(len(DEMO_ITEMS), models, DEMO_MODES, like_ask=True)


def expected_time(models: list[str], est: estimates.Estimate | None = None) -> str:
    """How long the demo should take here: its answers estimated from each model's recent calls on this machine
    (a stated rough guess where none are measured yet), and what a first run adds while the models load."""
    est = est or estimate(models)
    name = {m: re.sub(r" [(][^)]*[)]", "", registry.get(m).label) for m in models}
    text = est.text(lambda p: f"{name.get(p['model'], p['model'])} · {MODE_LABELS.get(p['mode'], p['mode'])}")
    embedder = getattr(services().docs.index, "embedder", None)
    if embedder is not None and not getattr(embedder, "loaded", True):
        text += "; the first run also loads the embedding model (a few seconds) and indexes the sample if needed"
    return text


def short_mark(report: support.SupportReport | None, mode: str) -> str:
    """One mark and a few words for how well the answer's sources back it."""
    if mode == "none":
        return "– no sources: the model's own knowledge"
    if report is None or not report.sentences:
        return "– nothing to check"
    counts = report.counts()
    n = len(report.sentences) - counts[support.NO_CLAIM]
    if n == 0:
        return "– nothing to check: no claim"
    if counts[support.NO_SOURCE] + counts[support.NOT_JUDGED] == n:
        return "– not checked (no citation)"
    verdict = report.verdict
    sign = support.SIGNS.get(verdict) or support.SIGNS[support.PARTLY]
    if verdict == support.NOT_CHECKED:
        return f"{sign} {counts[support.SUPPORTED]} of {n} claim{'s' if n != 1 else ''} supported, the rest not checked"
    return f"{sign} {counts[support.SUPPORTED]} of {n} claim{'s' if n != 1 else ''} supported"


def demo_button(models: list[str]) -> None:
    """The demo's button, and beside it how long it should take here."""
    b, note = st.columns([2, 3], vertical_alignment="center")
    when = expected_time(models)
    note.caption(f"{len(DEMO_ITEMS) * len(DEMO_MODES) * len(models)} answers, {when}")
    if b.button("▶ One-click demo: sample EIS, three questions",
                help="Indexes the sample if needed, then asks three NEPAQuAD questions of the offline models, " + when):
        res = run_safely(services().docs.ingest_file, str(config.SAMPLE_PDF))
        if res is not None:
            st.session_state["demo"] = {"doc_id": res.doc_id, "results": {}}
            st.rerun()


def _cell(r: ask_lib.AskResult, key: str) -> None:
    with st.container(border=True):
        if r.error:
            st.caption("⚠️ " + plain(clip(r.error, 90)))
        else:
            bare_verdict = (r.answer or "").strip().strip(".!").lower() == (r.verdict or "").lower()
            if r.closed and r.verdict:
                st.markdown(f"**{plain(r.verdict.upper())}**")
            if not bare_verdict:  # "No." under NO says nothing more
                st.text(clip(r.answer or "", SHORT))  # model output: text, never Markdown
            st.caption(plain(short_mark(r.support(services().docs.pages), r.mode)) + f" · {r.seconds:.1f} s")
        st.toggle("more", key=key)  # the whole answer opens under the row, at the page's width


def demo_section(models: list[str], label_of: Callable[[str], str],
                 render_full: Callable[[ask_lib.AskResult], None]) -> None:
    """The demo's grid, answered on first view (each cell filled as its answer arrives) and kept in the session
    until cleared, so typing a question or clicking a widget redraws it instead of losing it."""
    demo = st.session_state.get("demo")
    if not demo:
        return
    st.divider()
    head, clear = st.columns([5, 1])
    head.subheader("Demo: the sample EIS")
    clear.button("Clear demo", on_click=lambda: st.session_state.pop("demo", None))
    for m in models:
        st.caption(f"**{label_of(m)}**: {plain(DEMO_NOTES.get(m, registry.get(m).note))}")
    by_id = {it.id: it for it in load_sample_items()}
    items = [by_id[i] for i in DEMO_ITEMS]
    cols = st.columns([1, *[3] * len(items)])
    for col, it in zip(cols[1:], items, strict=True):
        with col:
            st.markdown(f"**Q{DEMO_ITEMS.index(it.id) + 1}.** {plain(it.question)}",
                        help=plain(f"NEPAQuAD {it.id} · {it.question_type} question"))
            st.caption("Expected: " + plain(clip(it.answer, 120)))
    slots, details = {}, {}
    for m in models:
        for mode in DEMO_MODES:
            row = st.columns([1, *[3] * len(items)])
            row[0].markdown(f"**{re.sub(r' [(][^)]*[)]', '', label_of(m))}**  \n{MODE_LABELS[mode]}")
            for col, it in zip(row[1:], items, strict=True):
                slots[(it.id, m, mode)] = col.empty()
            for it in items:  # under the row, full width: a cell's "more" (in a column the page was unreadable)
                details[(it.id, m, mode)] = st.empty()
    todo = [it for it in items if it.id not in demo["results"]]
    total = len(models) * len(DEMO_MODES)
    done_before = total * (len(items) - len(todo))
    est = estimate(models) if todo else None
    bar = st.progress(done_before / (total * len(items)), text=f"Answering… {expected_time(models, est)}") if todo else None
    countdown = estimates.Countdown(est, calls=len(todo)) if est else None  # each model's answers, at its own pace

    def show(item_id: str, r: ask_lib.AskResult) -> None:
        key = f"demo_more_{item_id}_{r.model}_{r.mode}"
        with slots[(item_id, r.model, r.mode)].container():
            _cell(r, key)
        if st.session_state.get(key):
            with details[(item_id, r.model, r.mode)].container():
                st.markdown(f"**Q{DEMO_ITEMS.index(item_id) + 1}** · {plain(by_id[item_id].question)}")
                render_full(r)

    for it in items:
        for row in demo["results"].get(it.id, []):
            show(it.id, ask_lib.AskResult(**row))
    for slot_key, slot in slots.items():
        if slot_key[0] in {t.id for t in todo}:
            slot.caption("waiting…")
    count, last = [done_before], [time.perf_counter()]
    for it in todo:
        began = time.perf_counter()

        def arrived(r: ask_lib.AskResult, item_id: str = it.id) -> None:
            count[0] += 1
            countdown.arrived(r.model, r.mode, time.perf_counter() - last[0])
            last[0] = time.perf_counter()
            bar.progress(count[0] / (total * len(items)), text=f"{count[0]} of {total * len(items)} answers · "
                         f"{countdown.left() or 'time left: shown once each model has answered here'}"
                         if count[0] < total * len(items) else "done")
            show(item_id, r)

        asked = ask_case.Settings(it.question, models, DEMO_MODES, demo["doc_id"], ask_lib.DEFAULT_K,
                                  it.question_type == "closed", False, it.context)
        demo["results"][it.id] = [r.__dict__ for r in ask_case.run(asked, services(), on_result=arrived).rows]
        demo["busy"] = demo.get("busy", 0.0) + time.perf_counter() - began  # time spent answering, not idle
    if todo:
        demo["seconds"] = demo.get("busy", 0.0)
        st.rerun()  # drawn again from the session, with its toggles
    if demo.get("seconds") is not None:
        st.caption(f"The demo's {total * len(items)} answers took {demo['seconds']:.0f} s.")

"""Ask's answer on screen and the controls above it: the line saying what the shown answer was asked with and what
has changed since, and Reopen, which puts the controls back as the reopened answer was asked, so the two never
disagree unseen. What changed, and what a reopened answer was asked with, are the Ask use case's
(lib/app/ask.py)."""
from collections.abc import Callable
from typing import Any

import streamlit as st

from lib.app import ask as ask_case
from lib.qa import MODE_LABELS
from pages._ui import KEPT, plain

GOLD_OWN = "(paste my own)"  # the gold picker's choice for a passage typed or pasted


def caption(grid: ask_case.Grid, now: ask_case.Settings, scope_label: Callable[[str | None], str]) -> None:
    """One line over the answer: what it was asked over; a second where the controls have moved since."""
    st.caption(grid.asked_over(lambda scope: plain(scope_label(scope))))
    moved = grid.changed(now)
    if moved:
        st.caption(f"⚠️ Since this answer you changed: {', '.join(moved)}. Run to answer with the settings above.")


def gold_key(pick: str) -> str:
    """The gold passage box's widget key for a picker choice."""
    return f"gold_text_{pick[:8]}"


def _put(key: str, value: Any) -> None:
    """Set a kept control: its copy is what `keep` puts back when the widget is drawn (with no default passed,
    so Streamlit never sees a value come both ways)."""
    st.session_state.pop(key, None)
    st.session_state[KEPT + key] = value


def reopen(batch_id: str, known_models: set[str], known_docs: set[str]) -> None:
    """Button callback (it runs before the page is drawn, so it may set the widgets): show a saved answer and put
    the controls back as it was asked, those still possible (a model not configured now, or a document since
    deleted, is left as it is, and the caption over the answer says what differs)."""
    grid = ask_case.reopened(batch_id)
    if grid is None:
        return
    st.session_state["last_grid"] = grid
    if grid.gold:  # the passage goes back in the box as the user's own (it may not be a NEPAQuAD item's)
        st.session_state["gold_pick"] = GOLD_OWN
        st.session_state[gold_key(GOLD_OWN)] = grid.gold
    st.session_state.pop("question", None)
    st.session_state["_kept_question"] = grid.question  # the page puts it in the box
    st.session_state["_closed_for"] = grid.question
    _put("ask_closed", grid.closed)
    if set(grid.models) <= known_models:
        _put("ask_models", grid.models)
    _put("ask_modes", [m for m in grid.modes if m in MODE_LABELS])
    if grid.k:
        _put("ask_k", int(grid.k))
    if grid.balanced is not None:
        _put("ask_doc_bal", bool(grid.balanced))
    scope = grid.scope
    if scope == "*":
        _put("ask_doc_how", "All documents")
    elif scope and "," in scope and set(scope.split(",")) <= known_docs:
        _put("ask_doc_how", "Several documents")
        _put("ask_doc_many", scope.split(","))
    elif scope and scope in known_docs:
        _put("ask_doc_how", "One document")
        _put("ask_doc", scope)

"""Ask's answer on screen and the controls above it: what the shown answer was asked with, what has changed since,
and Reopen, which puts the controls back as the reopened answer was asked, so the two never disagree unseen."""
from typing import Any

import streamlit as st

from lib.qa import MODE_LABELS
from lib.qa import ask as ask_lib
from pages._ui import KEPT, plain

SETTINGS = ("question", "models", "modes", "scope", "k", "closed", "balanced", "gold")
WORDS = {"question": "question", "models": "models", "modes": "context modes", "scope": "documents", "k": "k",
         "closed": "closed (yes/no)", "balanced": "balanced", "gold": "gold passage"}
GOLD_OWN = "(paste my own)"  # the gold picker's choice for a passage typed or pasted


def scope_key(scope: str | list[str] | None) -> str | None:
    """A scope as history stores it: "*", one id, ids joined by commas, or None."""
    return scope if scope is None or isinstance(scope, str) else ",".join(scope)


def shown(question: str, models: list[str], modes: list[str], scope: Any, k: int | None, closed: bool,
          balanced: bool | None, results: list[ask_lib.AskResult], gold: str | None = None) -> dict[str, Any]:
    """The answer as the session keeps it, with the settings it was asked with (the gold passage where its
    mode ran; taken from the answers when not given)."""
    if gold is None and "gold" in modes:
        gold = gold_of(results)
    return {"question": question, "models": list(models), "modes": list(modes), "scope": scope_key(scope), "k": k,
            "closed": closed, "balanced": balanced, "gold": gold if "gold" in modes else None,
            "rows": [r.__dict__ for r in results]}


def gold_of(results: list[ask_lib.AskResult]) -> str | None:
    """The gold passage the answers in gold mode were given."""
    for r in results:
        if r.mode == "gold" and r.contexts:
            return str(r.contexts[0].get("text") or "") or None
    return None


def changed(grid: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """The settings (in words) that differ between the shown answer and the controls; one the answer's record
    does not hold (None) is not counted, and k and balanced count only where retrieval ran."""
    rag = "rag" in grid["modes"]
    out = []
    for key in SETTINGS:
        if grid.get(key) is None or (key in ("k", "balanced") and not rag):
            continue
        if key in ("models", "modes"):
            differs = set(grid[key]) != set(now[key])
        elif key in ("question", "gold"):
            differs = " ".join(str(grid[key]).split()) != " ".join(str(now.get(key) or "").split())
        elif key == "scope":
            differs = ({"pdf", "rag"} & set(grid["modes"])) and grid[key] != scope_key(now[key])
        else:
            differs = grid[key] != now[key]
        if differs:
            out.append(WORDS[key])
    return out


def caption(grid: dict[str, Any], now: dict[str, Any], scope_label: Any) -> None:
    """One line over the answer: what it was asked over; a second where the controls have moved since."""
    bits = []
    if {"pdf", "rag"} & set(grid["modes"]):
        bits.append(f"over {plain(scope_label(grid['scope']))}")
    if "rag" in grid["modes"] and grid.get("k"):
        bits.append(f"{grid['k']} passages per search (k)" + (" · balanced" if grid.get("balanced") else ""))
    if grid.get("closed"):
        bits.append("closed (yes/no)")
    st.caption("Answered " + " · ".join(bits) if bits else "Answered with no document")
    moved = changed(grid, now)
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
    rows = ask_lib.load_batch(batch_id)
    if not rows:
        return
    saved = ask_lib.batch_settings(batch_id)
    models = list(dict.fromkeys(r.model for r in rows))
    modes = list(dict.fromkeys(r.mode for r in rows))
    st.session_state["last_grid"] = shown(rows[0].question, models, modes, saved["scope"], saved["k"],
                                          rows[0].closed, saved["balanced"], rows)
    gold = st.session_state["last_grid"]["gold"]
    if gold:  # the passage goes back in the box as the user's own (it may not be a NEPAQuAD item's)
        st.session_state["gold_pick"] = GOLD_OWN
        st.session_state[gold_key(GOLD_OWN)] = gold
    st.session_state.pop("question", None)
    st.session_state["_kept_question"] = rows[0].question  # the page puts it in the box
    st.session_state["_closed_for"] = rows[0].question
    _put("ask_closed", rows[0].closed)
    if set(models) <= known_models:
        _put("ask_models", models)
    _put("ask_modes", [m for m in modes if m in MODE_LABELS])
    if saved["k"]:
        _put("ask_k", int(saved["k"]))
    if saved["balanced"] is not None:
        _put("ask_doc_bal", bool(saved["balanced"]))
    scope = saved["scope"]
    if scope == "*":
        _put("ask_doc_how", "All documents")
    elif scope and "," in scope and set(scope.split(",")) <= known_docs:
        _put("ask_doc_how", "Several documents")
        _put("ask_doc_many", scope.split(","))
    elif scope and scope in known_docs:
        _put("ask_doc_how", "One document")
        _put("ask_doc", scope)

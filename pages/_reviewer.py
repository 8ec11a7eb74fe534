"""Who is reviewing: the signed-in user where sign-in is configured, else a name picked from the experts or typed.
Shared by Validate and Arena; the chosen name is kept across pages."""
from __future__ import annotations

from collections.abc import Iterable

import streamlit as st

from lib.core import access
from lib.review import annotations as ann
from lib.review import reviewers
from pages._ui import plain, run_safely

# Enter commits a typed name but leaves its box focused, so the next key, a label's (1, A, N…), would be typed into
# the name ("Nora Name1") instead of reaching the item: once the name is entered, the box lets go of the keys. A
# constant script (no user text in it), installed once per browser tab.
_LEAVE_NAME_ON_ENTER = """<script>
if (!window.__nepaqaLeaveName) {
  window.__nepaqaLeaveName = true;
  document.addEventListener("keydown", (e) => {
    const box = e.target;
    if (e.key === "Enter" && box instanceof HTMLInputElement
        && (box.getAttribute("aria-label") || "").startsWith("Your name")) {
      queueMicrotask(() => box.blur());  // before the next key is handled (a timer came after it: input goes first)
    }
  }, true);
}
</script>"""


def _user() -> dict:
    try:
        return dict(st.user.to_dict())
    except Exception:  # noqa: BLE001 - no script context, or an older Streamlit without st.user
        return {}


def signin_state() -> tuple[bool, bool]:
    """(sign-in is configured, the user is signed in)."""
    user = _user()
    return "is_logged_in" in user, user.get("is_logged_in") is True


def reviewer_identity(also_known: Iterable[str] = ()) -> tuple[str, str | None]:
    """(the reviewer's name or "", the adjudicator's name when this reviewer is one). ``also_known``: more experts
    to list (the arena's voters)."""
    # Identity. With st.login configured (an [auth] section in .streamlit/secrets.toml) the reviewer is the signed-in
    # user; st.user then has "is_logged_in". Without it, reviewers type a name and the page says that nothing checks it.
    user = _user()
    login_configured = "is_logged_in" in user
    signed_in = user.get("is_logged_in") is True
    who = ""
    if not access.allowed(access.Action.LABEL):
        st.info("Labelling and voting need the expert role. You can read everything here; ask an admin of this app "
                "if you need to review.")
        return "", None
    if signed_in:
        who = reviewers.signed_in_reviewer(user)
        adjudicator = who if reviewers.may_adjudicate() else None
        st.text(f"Reviewing as {who} (signed in)")
    elif login_configured:  # the app's gate signs people in before any page; this page run on its own says so
        st.info("Sign in to review: labels are tied to your account.")
        adjudicator = None
    else:
        st.caption("⚠️ Names are not authenticated here: anyone can label under any name.",
                   help="To tie labels to accounts, configure sign-in (st.login, an [auth] section in "
                        ".streamlit/secrets.toml).")
        known = sorted(set(ann.experts()) | set(also_known), key=str.casefold)
        add_new = "➕ Add a new expert…"
        c_pick, c_new = st.columns([2, 3])
        remembered = st.session_state.get("_reviewer")  # kept across pages (a widget's own state is not)
        pick = c_pick.selectbox("I am", [*known, add_new], index=known.index(remembered) if remembered in known else None,
                                key="expert_pick",
                                placeholder="Pick yourself from the list" if known else "Add yourself as an expert")
        # a name typed earlier stays in use (after the first save it is also in the list)
        if pick == add_new or (pick is None and (not known or str(st.session_state.get("expert_name", "")).strip())):
            typed = c_new.text_input("Your name, as it should appear on your labels", key="expert_name")
            c_new.html(_LEAVE_NAME_ON_ENTER, unsafe_allow_javascript=True)
            if typed.strip():
                who = run_safely(reviewers.check_reviewer_name, typed) or ""
                meant = reviewers.similar_expert(who, known) if who else None
                if meant:
                    c_new.warning(f"“{plain(meant)}” is already an expert. If that is you, pick it from the list so your "
                                  "labels stay under one name.", icon="⚠️")
        elif pick:
            who = pick
        adjudicator = who if who and reviewers.may_adjudicate() else None
        if who:
            st.session_state["_reviewer"] = who
    return who, adjudicator

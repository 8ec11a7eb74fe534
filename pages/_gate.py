"""The sign-in gate every rerun passes before any page: who is acting (the single local user, or the signed-in
account with its role), or what to show instead (sign in, an expired sign-in, no role yet, a provider that is down, a
server open to a network without sign-in). lib/app/accounts.py decides; this draws."""
from __future__ import annotations

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner import get_script_run_ctx

from lib.app import accounts
from lib.core import access


def _user() -> dict:
    try:
        return dict(st.user.to_dict())
    except Exception:  # noqa: BLE001 - no script context (a bare import)
        return {}


def _provider() -> tuple[str | None, str | None]:
    """(the provider st.login uses: None for the settings in [auth] itself, else the first named one such as
    [auth.logingov]; its discovery address, to see that it answers)."""
    try:
        auth = st.secrets.get("auth", {})
    except Exception:  # noqa: BLE001 - no secrets file (st.user then has no sign-in either)
        return None, None
    if auth.get("client_id"):
        return None, auth.get("server_metadata_url")
    named = [(k, v) for k, v in auth.items() if hasattr(v, "get") and v.get("client_id")]
    return (named[0][0], named[0][1].get("server_metadata_url")) if named else (None, None)


def actor_now() -> access.Actor | None:
    """The person acting, read afresh from the signed cookie and the role table (lib's resolver for callbacks).
    Nobody in a thread that is not a session's script run (st.user would read as no sign-in there)."""
    if get_script_run_ctx() is None:
        return None
    user = _user()
    if "is_logged_in" not in user:
        return None if accounts.exposed_without_sign_in(st.get_option("server.address")) else access.LOCAL_USER
    gate = accounts.gate(user)
    return gate.actor if gate.state == "open" else None


def enter() -> tuple[access.Actor | None, accounts.Gate | None]:
    """Who acts on this rerun (set for lib's checks, lib/core/access.py), or the gate to draw instead of any
    page. Every rerun reads the account's role again, so an admin's change applies on the next action."""
    user = _user()
    ctx = get_script_run_ctx()
    if ctx is not None:  # this run passed the gate (through_gate reads it on each page)
        ctx._nepaqa_gated = ctx.parallel_coordinator  # type: ignore[attr-defined]  # a new object every run
    access.set_resolver(actor_now)
    access.require_sign_in("is_logged_in" in user)  # with sign-in on, nobody acting may do nothing
    if "is_logged_in" not in user:  # no [auth] section: one local user, and only on this machine unless intended
        if problem := accounts.exposed_without_sign_in(st.get_option("server.address")):
            access.require_sign_in()  # nothing acts: the server serves only this message
            access.set_actor(None)
            return None, accounts.Gate("exposed", message=problem)
        st.sidebar.caption(accounts.local_line())
        access.set_actor(access.LOCAL_USER)
        return access.LOCAL_USER, None
    gate = accounts.gate(user, _provider()[1])
    access.set_actor(gate.actor if gate.state == "open" else None)
    if gate.state != "open":
        return None, gate
    with st.sidebar:
        st.text(f"Signed in as {gate.actor.id} ({gate.actor.role.word})")
        if st.button("Log out"):
            st.logout()
    return gate.actor, None


def draw(gate: accounts.Gate) -> None:
    """The only page a visitor who may not go on sees, whatever address they open."""
    st.title("🌲 NEPA QA Studio")
    if gate.state in ("exposed", "provider_down"):
        st.error(gate.message)
        return
    if gate.state == "no_role":
        st.warning(gate.message)
        if st.button("Log out"):
            st.logout()
        return
    if gate.state == "expired":
        st.warning(gate.message)
    st.write("Sign in to use NEPA QA Studio: documents, answers and labels here belong to accounts.")
    if st.button("Log in", type="primary"):
        name = _provider()[0]
        st.login(name) if name else st.login()


def through_gate() -> None:
    """Each page's first call. Streamlit runs a `pages/` file on its own (its old automatic navigation) until the
    app's script has run once in the process: a server's first requests, tabs reconnecting after a restart. Such a
    run passes the same gate here: the gate's page instead of this one, or the person acting set."""
    ctx = get_script_run_ctx()
    if ctx is None or not str(ctx.pages_manager.main_script_path).endswith("streamlit_app.py"):
        return  # a page tested on its own (AppTest), not the app
    if getattr(ctx, "_nepaqa_gated", None) is ctx.parallel_coordinator:
        return  # the app's script ran the gate in this run
    PagesManager.uses_pages_directory = False  # later runs go through the app's script
    _, closed = enter()
    if closed is not None:
        draw(closed)
        st.stop()

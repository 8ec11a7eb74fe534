"""Accounts (admins): who has which role, and the audit record of who did what."""
import pandas as pd
import streamlit as st

from lib.app import accounts
from lib.core import access
from pages._gate import through_gate
from pages._ui import run_safely, table, tidy

through_gate()  # a page reached without the app's sign-in gate goes back through it

st.title("🧑 Accounts")
st.caption("Roles go by e-mail, or by a group the sign-in provider sends (written group:<name>); a person has the "
           "highest role of their e-mail's and their groups' rows. A change here applies on the person's next action. "
           f"Rows from the {accounts.ROLES_SETTING} setting follow it at each start (added, changed, removed); a row "
           "changed here is kept.")
if not access.allowed(access.Action.MANAGE_ROLES):
    st.info("Only admins manage roles and read the audit record.")
    st.stop()

roles_tab, audit_tab = st.tabs(["Roles", "Audit record"])
with roles_tab:
    with st.form("set_role", clear_on_submit=True):
        c1, c2 = st.columns([3, 1])
        who = c1.text_input("E-mail or group:<name>", placeholder="reviewer@agency.gov")
        role = c2.selectbox("Role", accounts.ROLES, index=0)
        b1, b2 = st.columns(2)
        give = b1.form_submit_button("Give this role", type="primary")
        take = b2.form_submit_button("Remove their role")
    if give and run_safely(lambda: accounts.set_role(who, role) or True):
        st.success(f"{who.strip().lower()} is now {role}.")
    if take and run_safely(lambda: accounts.remove_role(who) or True):
        st.success(f"{who.strip().lower()} has no role now.")
    rows = run_safely(accounts.role_rows) or []  # after the form: the table shows the change just made
    if rows:
        table(pd.DataFrame([{"who": r.subject, "role": r.role.word, "set by": r.source if r.source != "admin" else
                             r.set_by} for r in rows]), hide_index=True)
    else:
        st.info(f"No roles yet. Give the first admin one here, or in the {accounts.ROLES_SETTING} setting.")
with audit_tab:
    st.caption("Every upload, deletion, metadata edit, label, vote, final label, run with a connected model, export "
               "and role change, with who and when; refusals too. Nothing here can be changed or deleted.")
    lines = run_safely(accounts.audit_lines) or []
    if lines:
        table(tidy(pd.DataFrame(lines)), hide_index=True, long=["detail"])
        st.download_button("Download the audit record (CSV)", access.in_this_context(accounts.audit_csv),
                           "audit.csv", "text/csv")
    else:
        st.info("Nothing recorded yet.")

"""The Documents page's volumes: an EIS published as several PDFs, its volumes listed in order, documents grouped
by hand or by a confirmed suggestion, and a volume taken out of its EIS."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from lib.app import Services
from lib.app import volumes as volumes_case
from pages._ui import plain, run_safely, table


def volumes_panel(svc: Services, titles: dict[str, str]) -> None:
    """Each EIS in volumes, the suggestions to confirm, and grouping by hand."""
    every = volumes_case.every(svc)
    if not every:
        st.caption("No EIS here is grouped in volumes. Upload a multi-volume EIS with *These files are volumes of one "
                   "EIS* ticked, or group indexed documents below.")
    for e in every:
        st.markdown(f"**{plain(e.name)}**")
        table(pd.DataFrame([{"volume": v.number, "title": v.label, "file": v.file, "pages": v.pages}
                                   for v in e.volumes]), hide_index=True, width="stretch",
                     column_config={"title": st.column_config.TextColumn(width="large")})
    for same in volumes_case.suggestions(svc):
        with st.container(border=True):
            st.markdown("**These documents state the same project, document type and date: volumes of one EIS?**")
            st.caption("; ".join(plain(f"{titles.get(d.doc_id, d.name)} ({d.name})") for d in same))
            if st.button("Yes, group them as one EIS, in this order", key="vol_suggest_" + "_".join(d.doc_id for d in same)) and \
                    run_safely(volumes_case.group, svc, [d.doc_id for d in same]) is not None:
                st.rerun()
    grouped = {d for e in every for d in e.doc_ids}
    loose = {d: t for d, t in titles.items() if d not in grouped}
    names = {e.eis_id: e.name for e in every}
    with st.form("vol_group"):
        picked = st.multiselect("Group documents as the volumes of one EIS (pick them in volume order)",
                                list(loose), format_func=lambda d: loose[d])
        into = st.selectbox("As", [None, *names],
                            format_func=lambda e: "a new EIS" if e is None else f"more volumes of {names[e]}")
        if st.form_submit_button("Group") and picked and run_safely(volumes_case.group, svc, picked, into) is not None:
            st.rerun()


def take_out_button(svc: Services, doc_id: str) -> None:
    """For a document that is a volume: take it out of its EIS (it stays indexed)."""
    e = volumes_case.of(svc, doc_id)
    if e is None:
        return
    v = next(v for v in e.volumes if v.doc_id == doc_id)
    st.caption(f"{plain(v.label)} of {plain(e.name)}.")
    if st.button("Take it out of this EIS (it stays indexed)", key="vol_take_out"):
        run_safely(volumes_case.take_out, svc, doc_id)
        st.rerun()

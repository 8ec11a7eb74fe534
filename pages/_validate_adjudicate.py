"""The Validate page's Adjudicate tab: the items where experts disagree, every expert's labels side by side, and the
final label for those with the adjudicator role (lib/core/access.py). People's words are shown as text."""
import pandas as pd
import streamlit as st

from lib.core import UserError
from lib.review import annotations as ann
from lib.review import reviewers
from pages._ui import plain, said, table


def adjudicate_tab(who: str, adjudicator: str | None, signed_in: bool, label_names: dict[str, str],
                   type_guide: dict[str, str]) -> None:
    dis = ann.disagreements()
    if not reviewers.may_adjudicate():
        st.info(reviewers.HOW_TO_ADJUDICATE)
    elif not adjudicator:
        st.info("Pick your name above to set final labels.")
    if not dis:
        st.info("No disagreements to settle.")
    else:
        meta = {it.item_id: it for it in ann.items(list(dict.fromkeys(d.item_id for d in dis)))}

        def q_of(item_id: str) -> str:
            q = (found.question if (found := meta.get(item_id)) else "") or item_id
            return q if len(q) <= 90 else q[:89] + "…"

        st.caption(f"{len(dis)} question(s) on {len({d.item_id for d in dis})} item(s) where experts disagree.")
        table(pd.DataFrame([{"question": q_of(d.item_id), "on": label_names.get(d.label, d.label),
                                    "experts said": " · ".join(f"{k}: {v}" for k, v in d.values.items()),
                                    "final": d.final or "not settled"} for d in dis]),
                     hide_index=True, width="stretch")
        # picked by position: two items may share a question's wording (NEPAQuAD reuses it across EISs)
        pick = st.selectbox("Open a disagreement", range(len(dis)), key="adj_pick", format_func=lambda i: (
            f"{q_of(dis[i].item_id)} — {label_names.get(dis[i].label, dis[i].label)} ({dis[i].item_id})"))
        d = dis[pick or 0]
        it = meta.get(d.item_id) or ann.ReviewItem(d.item_id, "", "", "", "")  # an item since removed: its id only
        left, right = st.columns([3, 2])
        with left:
            st.caption(f"Claimed type: {plain(it.question_type)}. "
                       f"{plain(type_guide.get(it.question_type, ''))}")
            st.markdown("**Question**")
            st.text(it.question)
            st.markdown("**Answer**")
            st.text(it.answer)
            st.markdown("**Proof / gold passage**" + (f" · page {it.page_number}" if it.page_number else ""))
            st.text(it.proof or "")
        with right:
            st.markdown(f"**Every expert on this item** (disputed: {label_names.get(d.label, d.label)})")
            by_expert = {k: v for k, v in ann.item_labels(d.item_id).items() if k != reviewers.ADJUDICATOR}
            for col, (name, v) in zip(st.columns(max(1, len(by_expert))), by_expert.items(), strict=False):
                with col.container(border=True):
                    st.markdown(f"**{plain(name)}**")
                    # names, labels and comments are people's words: text, never Markdown
                    st.text("\n".join(f"{label_names[k]}: {v.get(k, '—')}" for k in label_names)
                            + (f"\nSuggested type: {v['true_type']}" if v.get("true_type") else ""))
                    if v.get("comment"):
                        st.caption("Comment")
                        st.text(v["comment"])
            if d.final:
                st.caption(f"Final label set: {plain(d.final)}.")
            if adjudicator:
                value = st.radio("Final label",
                                 ["yes", "no", "unsure"] if d.label == "answer_correct" else ["yes", "no"],
                                 horizontal=True, key=f"adj_value_{d.item_id}_{d.label}")
                if st.button("Set final label", type="primary"):
                    try:
                        ann.adjudicate(d.item_id, d.label, value)
                    except UserError as exc:
                        st.error(said(exc), icon="⚠️")
                    else:
                        st.rerun()

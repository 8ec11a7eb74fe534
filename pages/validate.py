"""Validate: NEPA experts review benchmark items; the page reports agreement between experts.

Text that comes from items, comments, names or files is shown with st.text or in tables, never as Markdown.
"""
import json

import pandas as pd
import streamlit as st

from lib import annotations as ann
from lib import charts
from lib import judge_review as jr
from lib.agreement import LabelsCSVError, agreement_report, decode_csv_bytes, kappa_band, read_labels_csv
from lib.benchmark.dataset import QUESTION_TYPES
from lib.benchmark.generate import DEFINITIONS
from lib.errors import UserError
from lib.providers import registry
from pages._ui import plain, run_safely

st.title("✅ Validate")
st.caption("Experts check each item: is the question of its type, is the answer right, does the proof support it. "
           "Each item should get at least two reviewers; the page shows how far they agree.")

LABEL_NAMES = {"type_correct": "Question type correct", "answer_correct": "Answer correct",
               "proof_supports": "Proof supports answer"}


def _user() -> dict:
    try:
        return dict(st.user.to_dict())
    except Exception:  # noqa: BLE001 - no script context, or an older Streamlit without st.user
        return {}


# Identity. With st.login configured (an [auth] section in .streamlit/secrets.toml) the reviewer is the signed-in
# user; st.user then has "is_logged_in". Without it, reviewers type a name and the page says that nothing checks it.
user = _user()
login_configured = "is_logged_in" in user
signed_in = user.get("is_logged_in") is True
who = ""
if signed_in:
    who = str(user.get("email") or user.get("name") or "").strip()
    c_who, c_out = st.columns([5, 1])
    c_who.text(f"Reviewing as {who} (signed in)")
    if c_out.button("Log out"):
        st.logout()
    # Only the verified e-mail grants adjudication: a display name is often the user's own to set.
    adjudicator = ann.adjudicator_for(user.get("email")) if user.get("email") else None
elif login_configured:
    st.info("Sign in to review: labels are tied to your account.")
    if st.button("Log in", type="primary"):
        st.login()
    adjudicator = None
else:
    st.warning("Labels here are not authenticated: reviewers type their name and nothing checks it, so anyone can "
               "label under any name. To tie labels to accounts, configure sign-in (st.login, an [auth] section "
               "in .streamlit/secrets.toml).", icon="⚠️")
    typed = st.text_input("Your name (every label you record is tied to it)", key="expert_name")
    if typed.strip():
        who = run_safely(ann.check_reviewer_name, typed) or ""
    adjudicator = ann.adjudicator_for(who)


tab_review, tab_stats, tab_adjudicate, tab_judge, tab_io = st.tabs(
    ["Review", "Agreement", "Adjudicate", "Judge vs experts", "Import / export"])

with tab_review:
    sources = ann.sources()
    if not sources:
        st.info("No items to review yet. On the Benchmark page, import items and send them to the validation "
                "queue, or generate items (they are queued automatically).")
    elif not who:
        st.caption("Sign in above to start reviewing." if login_configured else
                   "Enter your name above to start reviewing.")
    else:
        c1, c2, c3 = st.columns([3, 1, 1])
        source = c1.selectbox("Item set", sources)
        n = c2.number_input("Sample size (0 = all)", 0, 10_000, 0)
        seed = c3.number_input("Seed", 0, 10_000, 0)
        batch_id = ann.create_batch(source, n or None, int(seed))
        item_ids = ann.batch_items(batch_id)
        done = ann.done_items(who, item_ids)
        st.progress(len(done) / len(item_ids), text=f"{len(done)} of {len(item_ids)} reviewed by you")
        key = f"pos_{batch_id}_{who}"
        if key not in st.session_state:  # resume at the first item this expert has not finished
            st.session_state[key] = next((i for i, it in enumerate(item_ids) if it not in done), 0)
        pos = st.session_state[key]
        item = ann.items([item_ids[pos]])[0]
        mine = {lb.label: lb.value for lb in ann.labels() if lb.item_id == item["item_id"] and lb.annotator == who}
        st.markdown(f"#### Item {pos + 1} of {len(item_ids)}")
        st.text(f"Item id: {item['item_id']}")
        st.markdown("**Claimed type**")
        st.text(f"{item['question_type']}: a {item['question_type']} question is "
                f"{DEFINITIONS.get(item['question_type'], '(not one of the ten types)')}")
        st.markdown("**Question**")
        st.text(item["question"])
        st.markdown("**Answer**")
        st.text(item["answer"])
        ref = f"Page {item['page_number']}, {item['doc_name']}" if item["page_number"] else str(item["doc_name"] or "")
        with st.expander("Proof / gold passage", expanded=True):
            if ref:
                st.text(ref)
            st.text(item["proof"] or "")
        with st.form(f"review_{item['item_id']}"):
            opts = ["yes", "no"]
            tc = st.radio("Is the question of its claimed type?", opts, horizontal=True,
                          index=opts.index(mine["type_correct"]) if "type_correct" in mine else None)
            type_opts = ["", *QUESTION_TYPES]
            tt = st.selectbox("If not, which type is it?", type_opts,
                              index=type_opts.index(mine["true_type"]) if mine.get("true_type") in type_opts else 0)
            ac_opts = ["yes", "no", "unsure"]
            ac = st.radio("Is the answer correct?", ac_opts, horizontal=True,
                          index=ac_opts.index(mine["answer_correct"]) if "answer_correct" in mine else None)
            ps = st.radio("Does the proof support the answer?", opts, horizontal=True,
                          index=opts.index(mine["proof_supports"]) if "proof_supports" in mine else None)
            comment = st.text_area("Comment", value=mine.get("comment", ""))
            saved = st.form_submit_button("Save and next ▶", type="primary")
        if saved:
            if not (tc and ac and ps):
                st.error("Answer the three questions before saving.")
            else:
                try:
                    ann.save_review(item["item_id"], who,
                                    {"type_correct": tc, "true_type": tt if tc == "no" else "", "answer_correct": ac,
                                     "proof_supports": ps, "comment": comment})
                except UserError as exc:
                    st.error(plain(exc), icon="⚠️")
                else:
                    st.session_state[key] = min(pos + 1, len(item_ids) - 1)
                    st.rerun()
        b1, b2, _ = st.columns([1, 1, 4])
        if b1.button("◀ Previous", disabled=pos == 0):
            st.session_state[key] = pos - 1
            st.rerun()
        if b2.button("Skip ▶", disabled=pos >= len(item_ids) - 1):
            st.session_state[key] = pos + 1
            st.rerun()

with tab_stats:
    labels = ann.labels()
    if not labels:
        st.info("No labels yet.")
    else:
        rep = agreement_report(labels, LABEL_NAMES)
        rows = [{"label": LABEL_NAMES[k], "items": r["n_items"], "experts": r["n_annotators"],
                 "% agreement": r["percent_agreement"], "Cohen's κ (mean of pairs)": r["cohen_kappa"],
                 "κ reading": kappa_band(r["cohen_kappa"]), "Fleiss' κ": r["fleiss_kappa"],
                 "Krippendorff's α": r["krippendorff_alpha"], "α reading": r["alpha_band"],
                 "correct (either expert)": r["either_rule"], "correct (all experts)": r["all_rule"]}
                for k, r in rep.items()]
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
        st.caption("Readings: Cohen/Fleiss κ by Landis & Koch (≤0.20 slight, ≤0.40 fair, ≤0.60 moderate, ≤0.80 "
                   "substantial, above: almost perfect); Krippendorff's α ≥ 0.8 reliable, ≥ 0.667 tentative, "
                   "below: unreliable. 'Either expert' is the paper's rule (an item counts as correct if any "
                   "expert marked it so); 'all experts' is the strict one. The paper reports 77% answer and "
                   "82% question-type correctness under the either rule.")
        agg = pd.DataFrame([{"label": LABEL_NAMES[k], "rule": rule, "share": r[f"{rule}_rule"]}
                            for k, r in rep.items() for rule in ("either", "all") if r[f"{rule}_rule"] is not None])
        if not agg.empty:
            st.altair_chart(charts.share_correct(agg))
        items_meta = {it["item_id"]: it["question_type"] for it in ann.items()}
        per_type = []
        for qtype in sorted({items_meta.get(lb.item_id, "?") for lb in labels}):
            sub = [lb for lb in labels if items_meta.get(lb.item_id, "?") == qtype]
            for k, r in agreement_report(sub, LABEL_NAMES).items():
                per_type.append({"type": qtype, "label": LABEL_NAMES[k], "either": r["either_rule"], "all": r["all_rule"]})
        if per_type:
            pt = pd.DataFrame(per_type).melt(id_vars=["type", "label"], var_name="rule", value_name="share").dropna()
            st.altair_chart(charts.share_correct_by_type(pt))
        st.markdown("**Confusion matrices per pair of experts**")
        for k, r in rep.items():
            for pair, p in r["cohen_pairs"].items():
                cm = pd.DataFrame(p["confusion"], index=[f"{pair.split(' × ')[0]}: {c}" for c in p["categories"]],
                                  columns=[f"{pair.split(' × ')[1]}: {c}" for c in p["categories"]])
                with st.expander(f"{LABEL_NAMES[k]} · {plain(pair)} · κ = {p['kappa']} "
                                 f"({kappa_band(p['kappa'])}), n = {p['n']}"):
                    st.dataframe(cm, width="stretch")

with tab_adjudicate:
    dis = ann.disagreements()
    listed = ann.adjudicators()
    if not listed:
        st.info(ann.HOW_TO_ADJUDICATE)
    elif not adjudicator:
        st.info(f"Only the adjudicators listed in {ann.ADJUDICATORS_SETTING} can set final labels; "
                + ("you are not listed." if who else "sign in or enter your name above.") +
                ("" if signed_in else " Names are typed, not authenticated (see the note at the top)."))
    if not dis:
        st.info("No disagreements to settle.")
    else:
        st.caption(f"{len(dis)} item/label pair(s) where experts disagree.")
        st.dataframe(pd.DataFrame([{"item": d["item_id"], "label": LABEL_NAMES.get(d["label"], d["label"]),
                                    "values": json.dumps(d["values"], ensure_ascii=False), "final": d["final"] or ""}
                                   for d in dis]),
                     hide_index=True, width="stretch")
        if adjudicator:
            opts = {f"{d['item_id']} · {d['label']}": d for d in dis}
            pick = st.selectbox("Settle", list(opts))
            d = opts[pick]
            value = st.radio("Final label",
                             ["yes", "no", "unsure"] if d["label"] == "answer_correct" else ["yes", "no"],
                             horizontal=True)
            if st.button("Set final label"):
                try:
                    ann.adjudicate(d["item_id"], d["label"], value, by=adjudicator)
                except UserError as exc:
                    st.error(plain(exc), icon="⚠️")
                else:
                    st.rerun()

with tab_judge:
    st.caption("A judge model labels the queued items with the experts' three questions (type correct, answer "
               "correct, proof supports it). Its labels are stored apart and never enter the experts' agreement "
               "figures; the tables show how often it agrees with each expert and with the adjudicated label, so you "
               "can tell whether it could stand in for them on items generated at scale.")
    judge_models = {p.id: p.label for p, ok, _ in registry.status_all() if ok and jr.is_llm(p)}
    queue = ann.items()
    judge_pick = None
    if not queue:
        st.info("No items in the validation queue yet.")
    elif not judge_models:
        st.info("No judge model is configured. Set an API key (OpenAI, Anthropic, an OpenAI-compatible server) or "
                "a local GGUF model; the extractive baseline is no language model and cannot judge.")
    else:
        c1, c2 = st.columns([3, 2])
        judge_pick = c1.selectbox("Judge model", list(judge_models), key="judge_model",
                                  format_func=lambda i: f"{judge_models[i]} · {i}")
        warn = registry.judge_warning(registry.get(judge_pick))
        if warn:
            st.warning(warn)
        every = "(all queued items)"
        judge_src = c2.selectbox("Items", [every, *ann.sources()], key="judge_source")
        judge_ids = [it["item_id"] for it in queue if judge_src == every or it["source"] == judge_src]
        judged = jr.done_items(judge_pick)
        pending = [i for i in judge_ids if i not in judged]
        st.caption(f"{len(judge_ids) - len(pending)} of {len(judge_ids)} items already labelled by this judge; "
                   "items that failed (a reply that was not the JSON asked for) are tried again.")
        if st.button(f"Label {len(pending)} item(s) with the judge", type="secondary" if warn else "primary",
                     disabled=not pending,
                      key="judge_run"):
            st.button("Cancel", key="cancel_judge", help="Stops after the items in flight; finished ones are kept.")
            judge_bar = st.progress(0.0, text="starting…")

            def judge_progress(done: int, total: int, _msg: str) -> None:
                judge_bar.progress(done / total, text=f"{done}/{total} items")

            res = run_safely(jr.judge_items, judge_pick, pending, progress=judge_progress)
            if res is not None:
                judge_bar.progress(1.0, text="done")
                st.success(f"{res['labelled']} labelled, {res['failed']} failed, {res['skipped']} already done"
                           + (f", {res['cancelled']} cancelled" if res["cancelled"] else "") + ".")
    known_judges = jr.judges()
    if known_judges:
        st.markdown("**Agreement with the experts**")
        shown = st.selectbox("Judge", known_judges, key="judge_shown",
                             index=known_judges.index(judge_pick) if judge_pick in known_judges else 0)
        jrep = jr.judge_agreement(shown)
        for name, r in jrep.items():
            st.markdown(f"**{LABEL_NAMES[name]}** · {r['n_judged']} item(s) labelled by the judge")
            pairs = [(f"expert: {who}", who, c) for who, c in r["vs_experts"].items()]
            pairs.append(("adjudicated label", "the adjudicated label", r["vs_adjudicated"]))
            st.dataframe(pd.DataFrame([{"compared with": col, "n": c["n"], "% agreement": c["percent"],
                                        "Cohen's κ": c["kappa"], "κ reading": kappa_band(c["kappa"]),
                                        "note": c["note"] or ""} for col, _, c in pairs]),
                         hide_index=True, width="stretch")
            st.text("\n".join(jr.sentence(shown, other, c) for _, other, c in pairs))
            if any(0 < c["n"] < jr.SMALL_SAMPLE for _, _, c in pairs):
                st.warning(f"Some of these figures rest on fewer than {jr.SMALL_SAMPLE} items: treat them as rough "
                           "until more items are labelled by both.", icon="⚠️")
        st.caption("κ is Cohen's kappa (agreement corrected for chance; Landis & Koch readings). n is the number of "
                   "items both labelled. The adjudicated label is the final one: the adjudicator's where set, else "
                   "the experts' unanimous value; disputed items are left out.")
        jrows = jr.judge_rows(shown)
        failed = [r for r in jrows if r["status"] == "failed"]
        with st.expander(f"The judge's labels ({len(jrows)} rows, {len(failed)} failed)"):
            st.dataframe(pd.DataFrame([{k: r[k] for k in ("item_id", "label", "value", "status", "error", "raw",
                                                          "created_at")} for r in jrows]),
                         hide_index=True, width="stretch")

with tab_io:
    labels_all = ann.labels(include_adjudicated=True)
    df = pd.DataFrame([lb.__dict__ for lb in labels_all]) if labels_all else pd.DataFrame(
        columns=["item_id", "annotator", "label", "value"])
    final = pd.DataFrame(ann.adjudicated_set())
    c1, c2, c3, c4 = st.columns(4)
    # CSV cells that a spreadsheet would run as a formula get a leading apostrophe (lib.csv_safe); JSON is raw.
    c1.download_button("Labels (CSV)", ann.labels_csv(), "labels.csv", "text/csv")
    c2.download_button("Labels (JSON)", df.to_json(orient="records"), "labels.json", "application/json")
    c3.download_button("Adjudicated set (CSV)", ann.adjudicated_csv(), "adjudicated.csv", "text/csv")
    c4.download_button("Adjudicated set (JSON)", final.to_json(orient="records"), "adjudicated.json", "application/json")
    st.caption("Importing is all or nothing: every row is checked first, and a file with any bad row changes "
               "nothing. Final labels ([adjudicated] rows) are imported only by an adjudicator. Files must be "
               "UTF-8 (or UTF-16 with a byte-order mark).")
    up = st.file_uploader("Import labels (CSV: item_id, annotator, label, value)", type=["csv"], key="labels_upload")
    if up is not None and st.button("Import"):
        try:
            text = decode_csv_bytes(up.getvalue(), up.name)
            if login_configured and not adjudicator:
                # With sign-in on, a reviewer imports only their own labels; an adjudicator may import anyone's.
                others = sorted({lb.annotator for lb in read_labels_csv(text)} - {who})
                if others or not signed_in:
                    raise UserError("With sign-in on, you can import only your own labels (annotator "
                                    f"'{who or 'signed-in user'}'); this file also holds labels of "
                                    f"{len(others)} other name(s). Ask an adjudicator to import it.")
            n = ann.import_labels_csv(text, by=adjudicator)
        except LabelsCSVError as exc:
            st.error(f"Nothing was imported: {len(exc.problems)} row(s) of the file have problems, listed below "
                     "(row 1 is the header). Fix them and import the whole file again.", icon="⚠️")
            st.dataframe(pd.DataFrame([p.__dict__ for p in exc.problems], columns=["row", "column", "reason"]),
                         hide_index=True, width="stretch")
        except UserError as exc:
            st.error(plain(exc), icon="⚠️")
        else:
            st.success(f"Imported {n} labels.")

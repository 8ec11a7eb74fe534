"""Validate: NEPA experts review benchmark items; the page reports agreement between experts (the Review,
Adjudicate and Judge tabs are drawn by pages/_validate_review.py, _validate_adjudicate.py and _validate_judge.py).

Text that comes from items, comments, names or files is shown with st.text or in tables, never as Markdown.
"""

import pandas as pd
import streamlit as st

from lib.app import accounts, charts
from lib.app import benchmark as bench_case
from lib.core import UserError, access
from lib.core.stats import agreement_report, kappa_band
from lib.evaluation.benchmark import GUIDELINES
from lib.review import LabelsCSVError, decode_csv_bytes
from lib.review import annotations as ann
from pages._gate import through_gate
from pages._reviewer import reviewer_identity, signin_state
from pages._ui import plain, said, table
from pages._validate_adjudicate import adjudicate_tab
from pages._validate_judge import judge_tab
from pages._validate_review import apply_pending, review_panel
from pages._validate_support import support_tab

through_gate()  # a page reached without the app's sign-in gate goes back through it

st.title("✅ Validate")
st.caption("Experts check each item: is the question of its type, is the answer right, does the proof support it. "
           "Each item should get at least two reviewers; the page shows how far they agree.")

# The ten types in plain, proof-read sentences (the Review tab, the guidelines and adjudication show them).
TYPE_GUIDE = GUIDELINES
SMALL_N = 30  # below this many items an agreement statistic is flagged as a first look
LABEL_NAMES = {"type_correct": "Question type correct", "answer_correct": "Answer correct",
               "proof_supports": "Proof supports answer"}


who, adjudicator = reviewer_identity()
login_configured, signed_in = signin_state()


GUIDELINES = """**For each item, answer three questions.**

1. **Is the question of its claimed type?** Compare it with the definitions below. If not, pick the type it is.
2. **Is the answer correct?** Judge it against the proof passage and the document; *unsure* when the passage
   cannot settle it.
3. **Does the proof support the answer?** The passage must state or clearly imply the answer.

Add a comment whenever you answer *no* or *unsure*: it is what an adjudicator reads.

4. *(Optional)* **Is each sentence of the answer supported by the sources shown?** Every sentence, not the gist:
   a number, date or name that differs from the passage makes it *no*. It calibrates the support checkers.

**Keys:** 1 / 2 type yes / no · 3 / 4 / 5 answer yes / no / unsure · 6 / 7 proof yes / no ·
8 / 9 each sentence supported yes / no · Ctrl+Enter save and next · A the three yes, save and next · N skip ·
P previous.

**The ten question types** (NEPAQuAD):

""" + "\n".join(f"- **{t}**: {d}" for t, d in TYPE_GUIDE.items())

apply_pending()  # a save pressed in the same run as a tab switch (the review panel is not drawn then)
tab_review, tab_stats, tab_adjudicate, tab_judge, tab_support, tab_io = st.tabs(
    ["Review", "Agreement", "Adjudicate", "Judge vs experts", "Support checkers", "Import / export"],
    key="validate_tab", on_change="rerun")

with tab_review:
    sources = ann.sources()
    if not sources:
        st.info("No items to review yet. On the Benchmark page, import items and send them to the validation "
                "queue, or generate items (they are queued automatically).")
    elif not who and access.allowed(access.Action.LABEL):  # (a role that cannot label was told so above)
        st.caption("Sign in above to start reviewing." if login_configured else
                   "Pick your name above (or add yourself) to start reviewing.")
    else:
        c1, c2, c3, c4 = st.columns([3, 1, 1, 1])
        source = c1.selectbox("Item set", sources, key="review_source", format_func=bench_case.item_set_name)
        n = c2.number_input("Sample size (0 = all)", 0, 10_000, 0)
        seed = c3.number_input("Seed", 0, 10_000, 0)
        with c4.popover("📖 Guidelines", use_container_width=True):
            st.markdown(GUIDELINES)
        if tab_review.open is not False:  # the label keys (1–7, A, N, P) live only while this tab is shown
            review_panel(who, source, int(n), int(seed))
        else:
            st.caption("Open this tab to review.")

with tab_stats:
    labels = ann.labels()
    if not labels:
        st.info("No labels yet.")
    else:
        rep = agreement_report(labels, LABEL_NAMES)
        def num(x: float | None) -> str:
            return "—" if x is None else f"{round(x, 2) + 0.0:.2f}"  # + 0.0: never "-0.00"

        def reading(band: str, n: int) -> str:
            return f"too few items to read (n = {n})" if n < SMALL_N else band

        # one column per question asked of the experts, a statistic per row: as columns, eleven ran past the page.
        # Agreement and the correct shares count different items, so they are two tables.
        agree = {LABEL_NAMES[k]: {
            "items 2+ experts labelled": r.n_shared, "experts": r.n_annotators,
            "% agreement": num(r.percent_agreement), "Cohen's κ (mean of pairs)": num(r.cohen_kappa),
            "κ reading": reading(kappa_band(r.cohen_kappa), r.n_shared),
            "Fleiss' κ": num(r.fleiss_kappa) if r.fleiss_kappa is not None else "— (needs 3+ experts)",
            "Krippendorff's α": num(r.krippendorff_alpha), "α reading": reading(r.alpha_band, r.n_shared)}
            for k, r in rep.items()}
        table(pd.DataFrame(agree).astype(str).rename_axis("statistic").reset_index(), hide_index=True, width="stretch")
        st.caption("Agreement between experts, over the items two or more of them labelled.")
        correct = {LABEL_NAMES[k]: {"items labelled": r.n_items, "yes by either expert": num(r.either_rule),
                                    "yes by all experts": num(r.all_rule)} for k, r in rep.items()}
        table(pd.DataFrame(correct).astype(str).rename_axis("of the items labelled").reset_index(), hide_index=True,
              width="stretch")
        st.caption("The share of every labelled item that experts said yes to: by at least one of them, and by all.")
        smallest = min(r.n_shared for r in rep.values())
        if smallest < SMALL_N:
            st.warning(f"Some of these figures rest on {smallest} item(s). Agreement statistics on fewer than "
                       f"{SMALL_N} items swing widely with one label (κ = 1.0 on 2 items means little): read them as "
                       "a first look, and review more items before quoting them.", icon="⚠️")
        if any(r.fleiss_kappa is None for r in rep.values()):
            st.caption("Fleiss' κ generalises Cohen's κ to three or more experts who labelled the same items; with "
                       "two experts, read Cohen's κ (the same idea for a pair).")
        st.caption("Readings: Cohen/Fleiss κ by Landis & Koch (≤0.20 slight, ≤0.40 fair, ≤0.60 moderate, ≤0.80 "
                   "substantial, above: almost perfect); Krippendorff's α ≥ 0.8 reliable, ≥ 0.667 tentative, "
                   "below: unreliable. 'Either expert' is the paper's rule (an item counts as correct if any "
                   "expert marked it so); 'all experts' is the strict one. The paper reports 77% answer and "
                   "82% question-type correctness under the either rule.")
        agg = pd.DataFrame([{"label": LABEL_NAMES[k], "rule": rule, "share": getattr(r, f"{rule}_rule")}
                            for k, r in rep.items() for rule in ("either", "all") if getattr(r, f"{rule}_rule") is not None])
        if not agg.empty:
            st.altair_chart(charts.share_correct(agg))
        items_meta = {it.item_id: it.question_type for it in ann.items()}
        per_type = []
        for qtype in sorted({items_meta.get(lb.item_id, "?") for lb in labels}):
            sub = [lb for lb in labels if items_meta.get(lb.item_id, "?") == qtype]
            for k, r in agreement_report(sub, LABEL_NAMES).items():
                per_type.append({"type": f"{qtype} (n = {r.n_items})", "label": LABEL_NAMES[k],
                                 "either": r.either_rule, "all": r.all_rule})
        if per_type:
            pt = pd.DataFrame(per_type).melt(id_vars=["type", "label"], var_name="rule", value_name="share").dropna()
            st.altair_chart(charts.share_correct_by_type(pt))
        st.markdown("**Confusion matrices per pair of experts**")
        if not any(r.cohen_pairs for r in rep.values()):
            st.caption("None yet: a matrix needs two experts who labelled the same items.")
        for k, r in rep.items():
            for pair, p in r.cohen_pairs.items():
                cm = pd.DataFrame(p.confusion, index=[f"{pair.split(' × ')[0]}: {c}" for c in p.categories],
                                  columns=[f"{pair.split(' × ')[1]}: {c}" for c in p.categories])
                kappa = "—" if p.kappa is None else f"{p.kappa:.2f}"
                why = ("too few items to read" if p.n < SMALL_N else kappa_band(p.kappa)) if p.kappa is not None \
                    else "not defined: one value only"
                with st.expander(f"{LABEL_NAMES[k]} · {plain(pair)} · κ = {kappa} ({why}), n = {p.n}"):
                    table(cm, width="stretch")

with tab_adjudicate:
    adjudicate_tab(who, adjudicator, signed_in, LABEL_NAMES, TYPE_GUIDE)

with tab_judge:
    judge_tab(LABEL_NAMES)

with tab_support:
    support_tab()

with tab_io:
    labels_all = ann.labels(include_adjudicated=True)
    df = pd.DataFrame([lb.__dict__ for lb in labels_all]) if labels_all else pd.DataFrame(
        columns=["item_id", "annotator", "label", "value"])
    final = pd.DataFrame([f.__dict__ for f in ann.adjudicated_set()], columns=["item_id", "label", "value", "how"])
    c1, c2, c3, c4 = st.columns(4)
    # CSV cells that a spreadsheet would run as a formula get a leading apostrophe (lib.core.csv_safe); JSON is raw.
    c1.download_button("Labels (CSV)", accounts.download("labels (CSV)", ann.labels_csv), "labels.csv", "text/csv")
    c2.download_button("Labels (JSON)", accounts.download("labels (JSON)", lambda: df.to_json(orient="records")),
                       "labels.json", "application/json")
    c3.download_button("Adjudicated set (CSV)", accounts.download("adjudicated set (CSV)", ann.adjudicated_csv),
                       "adjudicated.csv", "text/csv")
    c4.download_button("Adjudicated set (JSON)", accounts.download("adjudicated set (JSON)", lambda: final.to_json(
        orient="records")), "adjudicated.json", "application/json")
    st.caption("Importing is all or nothing: every row is checked first, and a file with any bad row changes "
               "nothing. Final labels ([adjudicated] rows) are imported only by an adjudicator. Files must be "
               "UTF-8 (or UTF-16 with a byte-order mark).")
    up = st.file_uploader("Import labels (CSV: item_id, annotator, label, value)", type=["csv"], key="labels_upload")
    if up is not None and st.button("Import", disabled=not access.allowed(access.Action.LABEL),
                                    help=None if access.allowed(access.Action.LABEL) else "Needs the expert role."):
        try:
            text = decode_csv_bytes(up.getvalue(), up.name)
            n = ann.import_labels_csv(text)
        except LabelsCSVError as exc:
            st.error(f"Nothing was imported: {len(exc.problems)} row(s) of the file have problems, listed below "
                     "(row 1 is the header). Fix them and import the whole file again.", icon="⚠️")
            table(pd.DataFrame([p.__dict__ for p in exc.problems], columns=["row", "column", "reason"]),
                         hide_index=True, width="stretch")
        except UserError as exc:
            st.error(said(exc), icon="⚠️")
        else:
            st.success(f"Imported {n} labels.")

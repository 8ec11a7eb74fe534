"""Validate: NEPA experts review benchmark items; the page reports agreement between experts (the Adjudicate and
Judge tabs are drawn by pages/_validate_adjudicate.py and pages/_validate_judge.py).

Text that comes from items, comments, names or files is shown with st.text or in tables, never as Markdown.
"""
import time
from collections.abc import Callable

import pandas as pd
import streamlit as st

from lib.app import benchmark as bench_case
from lib.app import charts, validate
from lib.core import UserError
from lib.core.stats import agreement_report, kappa_band
from lib.evaluation.benchmark import GUIDELINES, QUESTION_TYPES
from lib.review import LabelsCSVError, decode_csv_bytes, support_calibration
from lib.review import annotations as ann
from pages._reviewer import reviewer_identity, signin_state
from pages._ui import doc_label, plain, said, table
from pages._validate_adjudicate import adjudicate_tab
from pages._validate_judge import judge_tab
from pages._validate_support import support_tab

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

KEYS = {"type_correct": {"yes": "1", "no": "2"}, "answer_correct": {"yes": "3", "no": "4", "unsure": "5"},
        "proof_supports": {"yes": "6", "no": "7"}}
SUPPORT_KEYS = {"yes": "8", "no": "9"}


def _batch(source: str, n: int, seed: int) -> list[str]:
    """The batch's item ids: made once per set, size and seed in a session (and again when the set grows), so
    a click in the review panel does not write the batch again."""
    key = ("_review_batch", source, n, seed, len(ann.items(source=source)))
    if key not in st.session_state:
        st.session_state[key] = ann.batch_items(ann.create_batch(source, n or None, seed))
    return st.session_state[key]


def _item_text(item: ann.ReviewItem) -> None:
    """The item as the expert reads it: claimed type with its definition, question, answer and proof."""
    st.caption(f"Claimed type: {plain(item.question_type)}. "
               f"{plain(TYPE_GUIDE.get(item.question_type, '(not one of the ten types)'))}")
    st.markdown("**Question**")
    st.text(item.question)
    st.markdown("**Answer**")
    st.text(item.answer)
    doc = doc_label(item.doc_name)
    ref = f"Page {item.page_number}, {doc}" if item.page_number else doc
    st.markdown("**Proof / gold passage**" + (f" · {plain(ref)}" if ref else ""),
                help=plain(f"Item {item.item_id} of {item.doc_name or 'no document'} (as in the exports)"))
    st.text(item.proof or "")


Shown = Callable[[], tuple[str, dict, int]]  # the item on screen as a key pressed now finds it: id, draft, position


def _label_buttons(iid: str, draft: dict, shown: Shown) -> None:
    """The three questions' buttons (keys 1–7), the suggested type, the optional support label (8/9), the comment.
    The buttons' keys are the same on every item, and a press sets the label of the item shown when it lands."""
    def put(label: str, value: str) -> None:
        shown()[1][label] = value

    for label, question in ann.QUESTIONS.items():
        st.markdown(f"**{question}**")
        cols = st.columns(len(KEYS[label]))
        for col, (value, k) in zip(cols, KEYS[label].items(), strict=True):
            col.button(value, key=f"b_{label}_{value}", shortcut=k, width="stretch",  # the key shows beside
                       type="primary" if draft.get(label) == value else "secondary", on_click=put, args=(label, value))
        if label != "type_correct":
            continue
        # The suggested type's box has a slot whether or not it is shown, so the widgets below it keep their places:
        # moved by one, a button was briefly on the page twice (the old one until the run ended), and one key press
        # reached both: Previous pressed once went back two items.
        slot = st.empty()
        if draft.get("type_correct") == "no":
            opts = ["", *QUESTION_TYPES]
            draft["true_type"] = slot.selectbox(
                "Which type is it?", opts, key=f"tt_{iid}",
                index=opts.index(draft.get("true_type")) if draft.get("true_type") in opts else 0) or ""
    st.markdown(f"**{support_calibration.QUESTION}** (optional)")
    cols = st.columns(2)
    for col, (value, k) in zip(cols, SUPPORT_KEYS.items(), strict=True):
        col.button(value, key=f"b_support_{value}", shortcut=k, width="stretch",
                   type="primary" if draft.get(support_calibration.LABEL) == value else "secondary",
                   on_click=put, args=(support_calibration.LABEL, value),
                   help="Calibrates the support checkers (the Support checkers tab)")
    draft["comment"] = st.text_area("Comment (for the adjudicator)", value=draft.get("comment", ""),
                                    key=f"comment_{iid}", height=80)


def _save(iid: str, who: str, values: dict[str, str], key: str, next_pos: int) -> bool:
    """Save a review and move on (True); an incomplete review is refused and said so."""
    started = time.perf_counter()
    try:
        ann.save_review(iid, who, values)
    except UserError as exc:
        st.session_state["_review_error"] = (ann.INCOMPLETE.removesuffix(".") + " (keys 1–7)."
                                            if str(exc) == ann.INCOMPLETE else str(exc))
        return False
    st.session_state["_review_saved"] = time.perf_counter() - started
    st.session_state[key] = next_pos
    return True


def _actions(who: str, draft: dict, key: str, pos: int, last: int, shown: Shown) -> None:
    """Save and next, All yes, Previous and Skip, then what the last action said. Each acts on the item shown
    when its press lands (the same keys on every item)."""
    def save_draft() -> None:
        st.session_state[f"_pending_{key}"] = "save"  # done by the panel, after every callback of this run

    def all_yes() -> None:
        st.session_state[f"_pending_{key}"] = "all_yes"

    def move(step: int) -> None:
        st.session_state[key] = max(0, min(shown()[2] + step, last))

    complete = ann.review_complete(draft)
    # never disabled: a Ctrl+Enter pressed right after the third key must not meet a button drawn before it
    st.container().button("Save and next ▶", type="primary" if complete else "secondary", key="review_save",
                          shortcut="Ctrl+Enter", width="stretch", on_click=save_draft,
                          help=None if complete else "Answer the three questions first.")
    st.container().button("All yes ▶", key="review_all_yes", shortcut="A", width="stretch",
                          help="Yes to all three questions, save, and go to the next item", on_click=all_yes)
    b1, b2 = st.columns(2)
    b1.button("◀ Previous", key="review_prev", disabled=pos == 0, shortcut="P", width="stretch", on_click=move,
              args=(-1,))
    b2.button("Skip ▶", key="review_skip", disabled=pos >= last, shortcut="N", width="stretch", on_click=move,
              args=(1,))
    if "_review_error" in st.session_state:
        st.error(plain(st.session_state.pop("_review_error")), icon="⚠️")
    if "_review_saved" in st.session_state:
        st.caption("✓ Saved.", help=f"The database write took {st.session_state.pop('_review_saved') * 1000:.0f} ms.")


def _pending_save(who: str, key: str, last: int, shown: Shown) -> bool:
    """Save and next, or All yes, pressed in this run: done once every callback of the run has been called. A label
    key and Ctrl+Enter pressed close together reach the server in one run, and Streamlit calls their callbacks in
    no set order: saved in its callback, the review was found without its last label and refused."""
    action = st.session_state.pop(f"_pending_{key}", None)
    if action is None:
        return False
    # Widgets' latest values are in the session state before a run; the draft gets them only when the panel is
    # drawn, so the comment and suggested type are read from there.
    iid, now, at = shown()
    comment = st.session_state.get(f"comment_{iid}")
    values = (validate.all_yes_values(now, comment) if action == "all_yes"
              else validate.review_values(now, comment, st.session_state.get(f"tt_{iid}")))
    return _save(iid, who, values, key, min(at + 1, last))


def _draft(iid: str, who: str) -> dict:
    """This expert's labels of an item as they stand on screen: what they recorded before, or nothing."""
    draft_key = f"draft_{iid}_{who}"
    if draft_key not in st.session_state:
        st.session_state[draft_key] = dict(ann.item_labels(iid).get(who, {}))
    return st.session_state[draft_key]


@st.fragment
def review_panel(who: str, source: str, n: int, seed: int) -> None:
    """One item at a time, labelled with buttons or keys. A fragment: a click or a save reruns only this panel,
    not the statistics of the other tabs, so saving takes a fraction of a second.

    A key lands on the item shown: the buttons keep their keys from item to item, and a press acts on the
    position the session holds when it lands, not on the item its button was drawn for. (Buttons keyed by item
    were replaced on each move, so a key pressed as the next item appeared reached the previous item's button,
    and was dropped.)"""
    item_ids = _batch(source, n, seed)
    key = f"pos_{source}_{n}_{seed}_{who}"
    done = ann.done_items(who, item_ids)
    if key not in st.session_state:  # resume at the first item this expert has not finished
        st.session_state[key] = validate.resume_position(item_ids, done)
    last = len(item_ids) - 1

    def shown() -> tuple[str, dict, int]:
        at = min(st.session_state.get(key, 0), last)
        return item_ids[at], _draft(item_ids[at], who), at

    if _pending_save(who, key, last, shown):
        done = ann.done_items(who, item_ids)
    pos = min(st.session_state[key], last)
    st.progress(len(done) / len(item_ids), text=f"{len(done)} of {len(item_ids)} reviewed by you")
    item = ann.items([item_ids[pos]])[0]
    iid = item.item_id
    draft = _draft(iid, who)

    st.markdown(f"#### Item {pos + 1} of {len(item_ids)}")
    left, right = st.columns([3, 2])
    with left:
        _item_text(item)
    with right:
        _label_buttons(iid, draft, shown)
        _actions(who, draft, key, pos, last, shown)


# A tab switch reruns the page: the review panel saves without one (a fragment), so the other tabs show labels
# saved since only when they are opened again.
tab_review, tab_stats, tab_adjudicate, tab_judge, tab_support, tab_io = st.tabs(
    ["Review", "Agreement", "Adjudicate", "Judge vs experts", "Support checkers", "Import / export"],
    key="validate_tab", on_change="rerun")

with tab_review:
    sources = ann.sources()
    if not sources:
        st.info("No items to review yet. On the Benchmark page, import items and send them to the validation "
                "queue, or generate items (they are queued automatically).")
    elif not who:
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

        rows = [{"label": LABEL_NAMES[k], "items labelled": r.n_items, "items 2+ experts labelled": r.n_shared,
                 "experts": r.n_annotators,
                 "% agreement": num(r.percent_agreement), "Cohen's κ (mean of pairs)": num(r.cohen_kappa),
                 "κ reading": reading(kappa_band(r.cohen_kappa), r.n_shared),
                 "Fleiss' κ": num(r.fleiss_kappa) if r.fleiss_kappa is not None else "— (needs 3+ experts)",
                 "Krippendorff's α": num(r.krippendorff_alpha),
                 "α reading": reading(r.alpha_band, r.n_shared),
                 "correct (either expert)": num(r.either_rule), "correct (all experts)": num(r.all_rule)}
                for k, r in rep.items()]
        table(pd.DataFrame(rows), hide_index=True, width="stretch")
        st.caption("Agreement (%, κ, α) is over the items two or more experts labelled; the correct shares are over "
                   "every item labelled.")
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
            n = ann.import_labels_csv(text, by=adjudicator, importer=who if signed_in else None,
                                      sign_in=login_configured)
        except LabelsCSVError as exc:
            st.error(f"Nothing was imported: {len(exc.problems)} row(s) of the file have problems, listed below "
                     "(row 1 is the header). Fix them and import the whole file again.", icon="⚠️")
            table(pd.DataFrame([p.__dict__ for p in exc.problems], columns=["row", "column", "reason"]),
                         hide_index=True, width="stretch")
        except UserError as exc:
            st.error(said(exc), icon="⚠️")
        else:
            st.success(f"Imported {n} labels.")

"""Validate's Review tab: one item at a time, labelled with buttons or keys (pages/validate.py draws the page).

A key lands on the item shown: the buttons keep their keys from item to item, and a save a run's presses ask for is
done once all its callbacks have been called (``apply_pending``).

Text that comes from items, comments or names is shown with st.text, never as Markdown.
"""
import time
from collections.abc import Callable

import streamlit as st

from lib.app import validate
from lib.core import UserError
from lib.evaluation.benchmark import GUIDELINES, QUESTION_TYPES
from lib.review import annotations as ann
from lib.review import support_calibration
from pages._ui import doc_label, plain

TYPE_GUIDE = GUIDELINES

KEYS = {"type_correct": {"yes": "1", "no": "2"}, "answer_correct": {"yes": "3", "no": "4", "unsure": "5"},
        "proof_supports": {"yes": "6", "no": "7"}}
SUPPORT_KEYS = {"yes": "8", "no": "9"}
PENDING = "_review_pending"  # a save pressed in this run and the item it was pressed on (apply_pending)


# Keys typed ahead of the screen. A key that moves on (A, Ctrl+Enter, N, P) acts on the server's item, so a second
# one pressed before the next item is drawn acted on that item unseen: a second A saved it as all yes. After such a
# key, the browser holds back every review key, and says so, until the page shows what the key did: another item's
# heading, a new count of items reviewed (a save of the last item), or a message (a refused save); or, failing all
# three, WAIT_MS. Not after a key with nothing to do (Previous on the first item, Skip or a save on the last). A
# constant script (no user text in it), installed once per browser tab.
WAIT_MS = 5000
_HOLD_KEYS_AHEAD = """<script>
if (!window.__nepaqaKeysAhead) {
  window.__nepaqaKeysAhead = true;
  const mac = /Mac|iPhone|iPad/.test(navigator.platform);
  const heading = () => [...document.querySelectorAll("h4")].map(e => e.innerText.trim())
                          .find(t => /^Item \\d+ of \\d+/.test(t)) || "";
  const count = () => [...document.querySelectorAll("[data-testid='stProgress']")].map(e => e.innerText)
                        .find(t => t.includes("reviewed by you")) || "";
  const alerts = () => document.querySelectorAll("[data-testid='stAlert']").length;
  const panel = () => document.querySelector(".st-key-review_save") !== null;
  const enabled = (name) => [...document.querySelectorAll("[data-testid='stButton'] button")]
                              .some(b => b.innerText.includes(name) && !b.disabled);
  let held = null;  // what the page showed when a key that moves on was pressed
  const say = () => {
    let box = document.getElementById("nepaqa-keys-ahead");
    if (!box) {
      box = document.createElement("div");
      box.id = "nepaqa-keys-ahead";
      box.setAttribute("role", "status");
      box.style.cssText = "position:fixed;bottom:24px;left:50%;transform:translateX(-50%);z-index:100000;"
        + "background:#fff3cd;color:#5c4400;border:1px solid #e0c36c;border-radius:8px;padding:8px 14px;"
        + "font:14px 'Source Sans', sans-serif;box-shadow:0 2px 8px rgba(0,0,0,.15)";
      document.body.appendChild(box);
    }
    box.textContent = "Key not used: the page was still doing your last key. Press it again now.";
    box.style.display = "block";
    clearTimeout(box.hideAt);
    box.hideAt = setTimeout(() => { box.style.display = "none"; }, 2500);
  };
  window.addEventListener("keydown", (e) => {
    if (!panel()) return;
    const t = e.target, save = e.key === "Enter" && (mac ? e.metaKey : e.ctrlKey);
    const typing = t && (["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName) || t.isContentEditable);
    if (typing && !save) return;
    const now = {heading: heading(), count: count(), alerts: alerts(), at: performance.now()};
    if (held && (now.heading && now.heading !== held.heading || now.count !== held.count
                 || now.alerts !== held.alerts || now.at - held.at > WAIT_MS)) held = null;
    const plain = !e.ctrlKey && !e.metaKey && !e.altKey, key = e.key.toLowerCase();
    if (held && (save || (plain && /^[1-9anp]$/.test(key)))) {
      e.stopImmediatePropagation();
      e.preventDefault();
      say();
      return;
    }
    const m = /^Item (\\d+) of (\\d+)/.exec(now.heading), onLast = m !== null && m[1] === m[2];
    if ((save && !onLast) || (plain && !e.shiftKey && ((key === "a" && !onLast) || (key === "n" && enabled("Skip"))
                                                        || (key === "p" && enabled("Previous"))))) held = now;
  }, true);
}
</script>""".replace("WAIT_MS", str(WAIT_MS))


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


def _pend(key: str, who: str, item_ids: list[str], save: str | None = None) -> None:
    """Note, for the panel to do once every callback of the run has been called (``apply_pending``), a save pressed
    in this run and the item it was pressed on: the position before any move of the run. A label key and the
    Ctrl+Enter right after it reach the server in one run, and Streamlit calls their callbacks in no set order:
    saved in its callback, the review was found without its last label; and a move in the same run is done in its
    own callback, before or after the save's."""
    rec = st.session_state.get(PENDING)
    if rec is None or rec["key"] != key:
        rec = st.session_state[PENDING] = {"key": key, "who": who, "ids": item_ids, "saves": [],
                                           "at": st.session_state[key]}
    if save:
        rec["saves"].append(save)


def _move(key: str, who: str, item_ids: list[str], step: int) -> None:
    _pend(key, who, item_ids)  # the item shown, for a save pressed in the same run
    st.session_state[key] = max(0, min(st.session_state[key] + step, len(item_ids) - 1))


def apply_pending() -> None:
    """Do the save this run's presses asked for, on the item shown when they were pressed (all of a run's presses
    were: one made after the next item was drawn comes in a later run), once its labels are set: then one item on
    from wherever its moves left the position. Both save keys in one run: Save and next where the three answers are
    given, else All yes. Called at the top of the page and of the review panel, so a tab switch in the same run
    loses nothing."""
    rec = st.session_state.pop(PENDING, None)
    if rec is None or not rec["saves"] or rec["key"] not in st.session_state:
        return
    key, who, item_ids = rec["key"], rec["who"], rec["ids"]
    last = len(item_ids) - 1
    iid = item_ids[min(rec["at"], last)]
    now = _draft(iid, who)
    comment = st.session_state.get(f"comment_{iid}")
    action = "save" if "save" in rec["saves"] and (ann.review_complete(now) or "all_yes" not in rec["saves"]) \
        else "all_yes"
    # Widgets' latest values are in the session state before a run; the draft gets them only when the panel is
    # drawn, so the comment and suggested type are read from there.
    values = (validate.all_yes_values(now, comment) if action == "all_yes"
              else validate.review_values(now, comment, st.session_state.get(f"tt_{iid}")))
    _save(iid, who, values, key, min(st.session_state[key] + 1, last))


def _actions(who: str, draft: dict, key: str, pos: int, item_ids: list[str]) -> None:
    """Save and next, All yes, Previous and Skip, then what the last action said. Each acts on the item shown
    when its press lands (the same keys on every item), once the run's callbacks have all been called."""
    last = len(item_ids) - 1
    complete = ann.review_complete(draft)
    # never disabled: a Ctrl+Enter pressed right after the third key must not meet a button drawn before it
    st.container().button("Save and next ▶", type="primary" if complete else "secondary", key="review_save",
                          shortcut="Ctrl+Enter", width="stretch", on_click=_pend, args=(key, who, item_ids, "save"),
                          help=None if complete else "Answer the three questions first.")
    st.container().button("All yes ▶", key="review_all_yes", shortcut="A", width="stretch",
                          help="Yes to all three questions, save, and go to the next item", on_click=_pend,
                          args=(key, who, item_ids, "all_yes"))
    b1, b2 = st.columns(2)
    b1.button("◀ Previous", key="review_prev", disabled=pos == 0, shortcut="P", width="stretch", on_click=_move,
              args=(key, who, item_ids, -1))
    b2.button("Skip ▶", key="review_skip", disabled=pos >= last, shortcut="N", width="stretch", on_click=_move,
              args=(key, who, item_ids, 1))
    if "_review_error" in st.session_state:
        st.error(plain(st.session_state.pop("_review_error")), icon="⚠️")
    if "_review_saved" in st.session_state:
        st.caption("✓ Saved.", help=f"The database write took {st.session_state.pop('_review_saved') * 1000:.0f} ms.")


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
    if PENDING in st.session_state:
        apply_pending()
        done = ann.done_items(who, item_ids)

    def shown() -> tuple[str, dict, int]:
        at = min(st.session_state.get(key, 0), last)
        return item_ids[at], _draft(item_ids[at], who), at

    pos = min(st.session_state[key], last)
    item = ann.items([item_ids[pos]])[0]
    iid = item.item_id
    draft = _draft(iid, who)

    # Drawn in this order: the buttons (with their keys), the item's text, then its heading and the count above
    # them. A key pressed once the heading names an item finds that item's buttons, text and all: text first, a
    # new expert's first buttons came 1.5 s after the heading (the first lookup of the document's title), and a key
    # in between did nothing. The slots are containers, which keep the last item's heading until the new one is
    # written (an empty slot showed nothing meanwhile); the keys typed ahead are held back until then.
    st.html(_HOLD_KEYS_AHEAD, unsafe_allow_javascript=True)
    count, heading = st.container(), st.container()
    left, right = st.columns([3, 2])
    with right:
        _label_buttons(iid, draft, shown)
        _actions(who, draft, key, pos, item_ids)
    with left:
        _item_text(item)
    heading.markdown(f"#### Item {pos + 1} of {len(item_ids)}")
    count.progress(len(done) / len(item_ids), text=f"{len(done)} of {len(item_ids)} reviewed by you")


# A tab switch reruns the page: the review panel saves without one (a fragment), so the other tabs show labels
# saved since only when they are opened again.

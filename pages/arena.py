"""Arena: experts compare two answers to one EIS question, blind; systems earn Bradley–Terry ratings; a judge model
is checked against the experts (the Ratings and Judge tabs are drawn by pages/_arena_ratings.py and
pages/_arena_judge.py). The work is in lib/review (arena, arena_csv, arena_judge) and lib/core/stats.

Answers, passages, questions and names are shown with st.text or through plain(), never as Markdown.
"""
import hashlib
import re
import time
from collections.abc import Callable

import streamlit as st

from lib.app import accounts, charts
from lib.app import arena as arena_app
from lib.core import UserError, access, decode_text, without_notes
from lib.models import registry
from lib.qa import MODE_LABELS, support
from lib.review import arena, arena_csv, arena_support
from pages._arena_judge import judge_tab
from pages._arena_ratings import ratings_tab
from pages._gate import through_gate
from pages._reviewer import reviewer_identity
from pages._support_view import MARKS
from pages._ui import passage_text, plain, run_safely

through_gate()  # a page reached without the app's sign-in gate goes back through it

st.title("⚖️ Arena")
st.caption("Compare two answers to one EIS question without knowing who wrote them, and vote for the better one; "
           "the names appear after your vote.",
           help="Pick your name, read the question and answers A and B, then vote (buttons or keys). The votes rate "
                "each system (a model with a kind of context) with a 95% interval, and show whether a judge model "
                "agrees with the experts.")

available = {p.id: p.label for p, ok, _ in registry.status_all() if ok}


def model_name(model_id: str) -> str:
    return available.get(model_id, model_id)


def system_name(key: str) -> str:
    """A system key ("model · mode") in plain words."""
    return arena_app.system_name(key, model_name)


def short_name(key: str) -> str:
    """A system's name for chart axes: the labels without their parenthetical notes."""
    return without_notes(system_name(key))


def source_title(src: arena.Source) -> str:
    if src.kind == "ask":
        return f"Ask history, every question · {src.n_questions} question(s) · {src.n_pairs} pairs"
    if src.kind == "ask_batch":
        q = src.question if len(src.question) <= 90 else src.question[:90].rsplit(" ", 1)[0] + " …"
        return f"Ask: “{q}” · {src.n_pairs} pairs"
    return (f"Benchmark run: {charts.stored_run_title(src.run, model_name, MODE_LABELS)} · {src.n_pairs} pairs")


def widget_id(pair_key: str) -> str:
    """A pair's widget keys carry a hash, not the answers' ids (they end up in the page's HTML)."""
    return hashlib.sha256(pair_key.encode()).hexdigest()[:12]


def setup_form() -> None:
    """Start an arena: the answers (a benchmark run, the Ask history, or one Ask question), the systems, the experts
    wanted per pair. Plain widgets, not a form, so the systems follow the answers picked."""
    srcs = arena.sources()
    if not srcs:
        st.info("No answers to compare yet. Run a benchmark (Benchmark page) with two models or two context modes, "
                "or ask questions on the Ask page with two models: their answers can then be compared here.",
                icon="💡")
        return
    by_key = {s.source: s for s in srcs}  # picked by key, not by place: the list's order may change between runs
    picked_src = by_key[st.selectbox("Answers from", list(by_key), format_func=lambda k: source_title(by_key[k]),
                                     key="new_src")]
    systems = picked_src.systems
    chosen = st.multiselect("Systems to compare (a model with a kind of context)", range(len(systems)),
                            default=list(range(len(systems))), key=f"new_sys_{picked_src.source}",
                            format_func=lambda i: arena.system_label(*systems[i], model_name),
                            help="Only answers that differ in one thing are paired: two models with the same context, "
                                 "or one model with two kinds of context.")
    c1, c2 = st.columns([3, 1])
    if st.session_state.pop("_arena_clear_name", False):
        st.session_state["new_name"] = ""  # before the field is drawn: the next arena is not given the same name
    name = c1.text_input("Arena name (optional)", key="new_name")
    k = c2.number_input("Experts per pair", 1, 5, 2, key="new_k", help="Pairs other experts voted on by fewer "
                        "experts than this come first, so the experts' agreement can be measured.")
    if st.button("Start the arena", type="primary", disabled=not access.allowed(access.Action.RUN_BENCHMARK),
                 help=None if access.allowed(access.Action.RUN_BENCHMARK) else "Needs the analyst role."):
        picked = [systems[i] for i in chosen]
        if len(picked) < 2:
            st.error("Pick at least two systems.", icon="⚠️")
            return
        made = run_safely(arena.create_arena, picked_src.source, picked, name, int(k))
        if made:
            st.session_state["_arena_open"] = made  # picked before the arena selectbox is drawn, on the rerun
            st.session_state["_arena_toast"] = "Arena started: vote in its Vote tab."
            st.session_state["_arena_clear_name"] = True
            st.rerun()


if "_arena_toast" in st.session_state:
    st.toast(plain(st.session_state.pop("_arena_toast")), icon="⚖️")
all_arenas = arena.arenas()
if not all_arenas:
    st.subheader("Start an arena")
    setup_form()
    st.stop()

ids = [a.arena_id for a in all_arenas]
if st.session_state.get("_arena_open") in ids:
    st.session_state["arena_pick"] = st.session_state.pop("_arena_open")
if st.session_state.get("arena_pick") not in ids:
    st.session_state["arena_pick"] = ids[0]
names = {a.arena_id: a.name for a in all_arenas}
c_arena, c_counts = st.columns([2, 3], vertical_alignment="bottom")
aid = c_arena.selectbox("Arena", ids, format_func=lambda i: names[i], key="arena_pick")
info = arena.get_arena(aid)
summary = arena.arena_summary(info)
c_counts.caption(f"{summary.n_pairs} pairs over {summary.n_questions} question(s) · "
           f"{len(info.systems)} systems · {summary.n_votes} vote(s) from {len(summary.experts)} expert(s)"
           + (f" · each pair wanted from {info.min_experts} experts" if info.min_experts > 1 else ""))
if summary.left_out:
    st.caption("Left out (failed, empty or 'nothing to quote' answers cannot be compared): " + "; ".join(
        f"{plain(arena.system_label(*s, model_name))}: {n}" for s, n in sorted(summary.left_out.items())))
if summary.identical:
    st.caption(f"{summary.identical} pair(s) of identical answers are not asked (there is nothing to choose).")

tab_vote, tab_ratings, tab_judge, tab_arenas = st.tabs(
    ["Vote", "Ratings", "Judge vs experts", "Arenas, import / export"], key="arena_tab", on_change="rerun")


ANSWER_HEIGHT = 180  # pixels: two answers and the vote buttons fit the first screen; a longer answer scrolls
_LEAD_BULLET = re.compile(r"^\s*[-+*•]\s+(?=\S)")


def _answers(left: str, right: str, names: tuple[str, str] | None = None) -> None:
    """Answers A and B side by side, each in a box of the same height (scrolling when long), with the names
    once revealed. A lone list marker opening an answer ("+ The agency…", a small model's habit) is left out."""
    for col, side, text, name in zip(st.columns(2), "AB", (left, right), names or (None, None), strict=True):
        with col.container(border=True, height=ANSWER_HEIGHT):
            st.markdown(f"**Answer {side}**" + (f" · {plain(name)}" if name else ""))
            st.text(_LEAD_BULLET.sub("", text or ""))


def _notices() -> None:
    """Below the buttons, so a notice coming or going never moves them under the pointer."""
    if "_arena_undone" in st.session_state:
        st.info(f"Your last vote ({st.session_state.pop('_arena_undone')}) was taken back; vote on the pair "
                "again.", icon="↩️")
    if st.session_state.pop("_arena_stale", False):
        st.warning("A key pressed while the next pair was loading was ignored; press it again.", icon="⌨️")
    if "_arena_error" in st.session_state:
        st.error(plain(st.session_state.pop("_arena_error")), icon="⚠️")


def _revealed(arena_id: str, last: arena_app.LastVote, more: bool, live: bool, undo: Callable[[], None]) -> None:
    """The pair just voted on stays, its names revealed where the buttons were, until the expert moves on."""
    st.markdown(f"**Question:** {plain(last.question)}")
    _answers(last.left, last.right, (last.a, last.b))
    # one row where the vote buttons were, so Next stays on the first screen (1400 × 1000)
    said, n1, n2 = st.columns([4, 2, 1], vertical_alignment="center")
    said.markdown(f"🔓 **Your vote: {last.vote}.** A was {plain(last.a)}; B was {plain(last.b)}.")
    n1.button("Next pair ▶" if more else "Done ▶", key=f"next_{arena_id}", type="primary",
              width="stretch", shortcut="Enter" if live else None, on_click=lambda: setattr(last, "seen", True))
    n2.button("↩️ Undo my vote", key=f"undo_shown_{arena_id}", width="stretch",
              shortcut="U" if live else None, on_click=undo)


def _mark_line(m: support.Mark) -> str:
    """One sentence's offline support mark as plain text: status, page, sentence, evidence, what differs."""
    return (f"{MARKS.get(m.status, '?')} {m.status}" + (f" [{m.page}]" if m.page else "")
            + f": {m.text}"
            + (f"\n    {'closest span' if m.status == 'unsupported' else 'evidence'}: "
               f"{m.evidence[:200]}{'…' if len(m.evidence) > 200 else ''}" if m.evidence else "")
            + (f"\n    differs: {'; '.join(m.differs)}" if m.differs else ""))


def _passages(pair: arena.Pair) -> None:
    """What the answers could draw on, and each answer checked against it offline (in an expander)."""
    if not (pair.gold or pair.passages):
        return
    with st.expander("Passages from the EIS (what the answers could draw on)"):
        if pair.gold:
            st.caption("Reference passage (the source the question was written from)")
            st.text(passage_text(pair.gold))
        for p in pair.passages:
            where = " ".join(x for x in (f"[{p.n}]" if p.n else "", plain(p.doc_name),
                                         f"p. {p.page_start}" if p.page_start else "") if x)
            st.caption(f"Retrieved passage {where}")
            st.text(passage_text(p.text))
        checked = arena_support.pair_support(pair)
        if checked:
            st.caption("Each answer checked against every passage above (its own markers set aside, so the "
                       "check does not tell which context it had):")
        for side, rep in zip("AB", checked or (), strict=False):
            st.caption(f"Answer {side} against these passages (offline check): {plain(rep.summary())}")
            st.text("\n".join(_mark_line(m) for m in rep.marks()))


@st.fragment
def vote_panel(arena_id: str, who: str, live: bool) -> None:
    """One pair at a time, names hidden until the vote. A fragment: a vote reruns only this panel."""
    snap = arena.snapshot(arena_id)  # one read for the progress, the pair and the vote
    done, total = arena.progress(arena_id, who, snap=snap)
    st.progress(done / total if total else 0.0, text=f"{done} of {total} pairs voted by you")

    if st.session_state.pop("_arena_counts_stale", False):
        st.rerun(scope="app")  # after a vote: the header's vote and expert counts are redrawn with the panel

    session: arena_app.VotingSession = st.session_state.setdefault(
        f"_arena_session_{arena_id}_{who}", arena_app.VotingSession(arena_id, who))
    pair = session.next_pair(snap)

    def undo() -> None:
        """Take back the vote this session last cast (whatever other tabs or imports did since)."""
        undone = session.undo()
        if undone:
            st.session_state["_arena_counts_stale"] = True  # the header's counts drop the vote too
            st.session_state["_arena_undone"] = undone

    last = session.last
    if last and not last.seen:
        _revealed(arena_id, last, pair is not None, live, undo)
        _notices()
        return
    if pair is None:
        st.success("You have voted on every pair in this arena. See the Ratings tab.", icon="✅")
        if session.voted:
            st.button("↩️ Undo my last vote", key=f"undo_end_{arena_id}", on_click=undo)
        _notices()
        return
    wid = widget_id(pair.pair_key)
    session.show(pair, time.time())

    def cast(vote: str) -> None:
        try:
            session.cast(pair, vote, st.session_state.get(f"reason_{wid}", ""), time.time(), model_name, snap)
        except arena_app.StaleKeyError:  # a key that reached the previous pair's button
            st.session_state["_arena_stale"] = True
            return
        except UserError as exc:
            st.session_state["_arena_error"] = str(exc)
            return
        st.session_state["_arena_counts_stale"] = True  # the page's header counts the vote too

    st.markdown(f"**Question:** {plain(pair.question)}")
    _answers(pair.left.text, pair.right.text)
    b = st.columns(4)
    for col, vote, key, icon in ((b[0], "left", "Left", "⬅️"), (b[1], "right", "Right", "➡️"),
                                 (b[2], "tie", "T", "🤝"), (b[3], "both_bad", "X", "👎")):
        col.button(f"{icon} {arena_app.VOTE_WORDS[vote]}", key=f"v_{vote}_{wid}", width="stretch",
                   shortcut=key if live else None, on_click=cast, args=(vote,))
    _passages(pair)
    c_reason, c_undo = st.columns([4, 1], vertical_alignment="bottom")
    c_reason.text_input("Reason (optional, saved with the vote)", key=f"reason_{wid}")
    c_undo.button("↩️ Undo last vote", key=f"undo_{wid}", disabled=not session.voted, width="stretch",
                  shortcut="U" if live else None, on_click=undo)
    st.caption("Keys: ← A is better · → B is better · T tie · X both bad · U undo; after a vote, Enter for the next "
               "pair. The names are shown in place of these buttons after your vote. Citations such as [1] (p. 8) come with answers that were given retrieved passages. The time "
               "from the pair on screen to your vote is saved with it.")
    _notices()


with tab_vote:
    who, _adjudicator = reviewer_identity(arena.voters())  # experts of Validate and of every arena
    if who:
        vote_panel(aid, who, tab_vote.open is not False)  # the keys live only while this tab is shown
    elif access.allowed(access.Action.VOTE):  # (a role that cannot vote was told so above)
        st.caption("Pick or add your name above to start voting.")

with tab_ratings:
    ratings_tab(aid, info, summary, who, system_name, short_name)

with tab_judge:
    judge_tab(aid, info, model_name)

with tab_arenas:
    st.subheader("Votes as CSV")
    st.download_button("Download this arena's votes (CSV)", accounts.download(f"votes of arena {aid}", lambda: arena_csv.votes_csv(aid)), file_name=f"arena_{aid}_votes.csv",
                       mime="text/csv", disabled=not summary.n_votes)
    up = st.file_uploader("Import votes (CSV exported from an arena over the same answers)", type=["csv"],
                          key=f"arena_import_{aid}",
                          help="Answers are named by their ids in this studio's store, so votes import into an "
                               "arena over the same benchmark run or Ask answers here, not into another installation.")
    if "_arena_imported" in st.session_state:
        got = st.session_state.pop("_arena_imported")
        st.success(f"Imported: {got['new']} new vote(s), {got['replaced']} replaced (the file's vote differs), "
                   f"{got['unchanged']} already here unchanged.")
    if up is not None and st.button("Import into this arena", disabled=not access.allowed(access.Action.VOTE),
                                    help=None if access.allowed(access.Action.VOTE) else "Needs the expert role."):
        text = run_safely(decode_text, up.getvalue(), "votes file")
        got = run_safely(arena_csv.import_votes_csv, text, aid) if text is not None else None
        if got:
            st.session_state["_arena_imported"] = got
            st.rerun()  # the header's counts and the download follow
    st.subheader("Start another arena")
    setup_form()
    st.subheader("Delete this arena")
    sure = st.checkbox(f"Delete “{plain(info.name)}” and its {summary.n_votes} vote(s) (the answers stay)",
                       key=f"del_{aid}")
    if st.button("Delete the arena", disabled=not sure or not access.allowed(access.Action.DELETE),
                 help=None if access.allowed(access.Action.DELETE) else "Deleting needs the admin role."):
        arena.delete_arena(aid)  # the next run opens another arena (or the start form)
        st.session_state["_arena_toast"] = f"Arena “{info.name}” deleted (its answers stay)."
        st.rerun()

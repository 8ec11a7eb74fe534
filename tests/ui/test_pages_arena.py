"""AppTest: the Arena page hides which system wrote which answer until the vote, then shows ratings."""
from streamlit.testing.v1 import AppTest

from lib.review import arena
from lib.storage.engine import get_engine
from tests.conftest import ROOT
from tests.review.test_annotations import identify
from tests.review.test_arena import make_run

LABELS = ("SmolLM2", "Extractive", "local/smollm2", "local/extractive", "Retrieved passages", "Gold passage")


def page() -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / "arena.py"), default_timeout=120)


def vote_tab_text(at: AppTest) -> str:
    tab = at.tabs[0]
    parts = []
    for kind in ("markdown", "text", "caption", "success", "info", "warning"):
        parts += [e.value for e in getattr(tab, kind)]
    parts += [b.label for b in tab.button]
    return "\n".join(str(p) for p in parts)


def test_names_hidden_until_the_vote_then_ratings():
    make_run(get_engine())
    for a in arena.arenas():  # a fresh page: no arena from another test
        arena.delete_arena(a.arena_id)
    at = page().run()
    assert not at.exception
    start = next(b for b in at.button if b.label == "Start the arena")
    start.click().run()
    assert not at.exception, at.exception
    assert len(arena.arenas()) == 1
    aid = arena.arenas()[0].arena_id
    at = page().run()
    identify(at, "Ada Arena")
    assert not at.exception
    text = vote_tab_text(at)
    assert "Answer A" in text and "Answer B" in text and "Reply " in text
    assert not any(name in text for name in LABELS), text  # blind: no model, no mode
    shown = arena.next_pair(aid, "Ada Arena")
    assert shown.left.text in text and shown.right.text in text
    # vote with the "A is better" button; the names appear for the pair just voted on
    next(b for b in at.tabs[0].button if b.label.endswith("A is better")).click().run()
    assert not at.exception
    rows = arena.votes(aid)
    assert len(rows) == 1 and rows[0].annotator == "Ada Arena" and rows[0].vote == "left"
    assert rows[0].left_answer == shown.left.answer_id and rows[0].seconds is not None
    revealed = [s.value for s in at.tabs[0].markdown if s.value.startswith("🔓 **Your vote")]
    assert any("A was" in s and "B was" in s for s in revealed), revealed
    assert "1 of 14 pairs voted by you" in "".join(p.proto.text for p in at.get("progress"))
    # the reveal stands in place of the vote buttons, over the same pair; the header counts the vote at once
    labels = [b.label for b in at.tabs[0].button]
    assert "Next pair ▶" in labels and not any(x.endswith("A is better") for x in labels), labels
    assert shown.left.text in vote_tab_text(at)
    assert any("1 vote(s) from 1 expert(s)" in c.value for c in at.caption), [c.value for c in at.caption][:4]
    # the next pair is blind again
    next(b for b in at.tabs[0].button if b.label == "Next pair ▶").click().run()
    assert not at.exception
    after = vote_tab_text(at)
    assert not any(name in after for name in LABELS), after
    assert any(b.label.endswith("A is better") for b in at.tabs[0].button)
    assert arena.next_pair(aid, "Ada Arena").left.text in after
    # the Ratings tab is folded while Ada has pairs left (seeing counts could bias her); she opens it anyway
    assert any("still have pairs to vote on" in i.value for i in at.tabs[1].info)
    assert not at.tabs[1].dataframe
    next(b for b in at.tabs[1].button if b.label == "Show the ratings anyway").click().run()
    # the Ratings tab: a table with n (systems without votes listed too), the chart, and the small-n warning
    ratings_tab = at.tabs[1]
    table = ratings_tab.dataframe[0].value
    assert sorted(table["votes (n)"]) == [0, 0, 1, 1] and len(table) == 4
    assert sorted(table["answers left out"]) == [0, 0, 0, 1]  # make_run's one failed answer
    assert any("Only 1 vote" in w.value for w in ratings_tab.warning)
    assert ratings_tab.get("arrow_vega_lite_chart") or ratings_tab.get("vega_lite_chart")


def test_second_arena_undo_and_delete():
    """Starting a second arena from the Arenas tab opens it (it once crashed: the arena picker's state was set after
    the widget was drawn); the systems follow the answers picked; a vote can be taken back; an arena can be deleted."""
    make_run(get_engine())
    for a in arena.arenas():
        arena.delete_arena(a.arena_id)
    at = page().run()
    next(b for b in at.button if b.label == "Start the arena").click().run()
    first = arena.arenas()[0].arena_id
    at = page().run()
    tab = at.tabs[3]
    systems = next(m for m in tab.multiselect if m.label.startswith("Systems to compare"))
    systems.set_value(systems.value[:2]).run()  # two of the four: one pair per question
    next(t for t in at.tabs[3].text_input if t.label.startswith("Arena name")).input("Two systems").run()
    next(b for b in at.tabs[3].button if b.label == "Start the arena").click().run()
    assert not at.exception, at.exception
    made = {a.name: a for a in arena.arenas()}
    assert len(made["Two systems"].systems) == 2
    assert at.selectbox(key="arena_pick").value == made["Two systems"].arena_id  # the new arena is open
    identify(at, "Ben Arena")
    aid = made["Two systems"].arena_id
    def counts() -> str:  # the header's live counts
        return next(c.value for c in at.caption if "vote(s) from" in c.value).split(" · ")[2]

    next(b for b in at.tabs[0].button if b.label.endswith("B is better")).click().run()
    assert [v.vote for v in arena.votes(aid)] == ["right"]
    assert counts() == "1 vote(s) from 1 expert(s)"
    voted = arena.votes(aid)[0].pair_key
    next(b for b in at.tabs[0].button if "Undo" in b.label).click().run()
    assert arena.votes(aid) == [] and any("taken back" in i.value for i in at.tabs[0].info)
    assert counts() == "0 vote(s) from 0 expert(s)"  # the header drops the vote taken back
    assert arena.next_pair(aid, "Ben Arena", prefer=voted).pair_key == voted
    at.tabs[3].checkbox[0].check().run()
    next(b for b in at.tabs[3].button if b.label == "Delete the arena").click().run()
    assert not at.exception
    assert [a.arena_id for a in arena.arenas()] == [first] and at.selectbox(key="arena_pick").value == first


def test_the_judge_tab_judges_the_voted_pairs_and_asks_again_about_unreadable_replies(monkeypatch):
    """The Judge tab against a loopback OpenAI server: both voted pairs get replies that are no choice, and the page
    says so in words, with the reason, and offers to ask again; asked again, both pairs are judged and the judge is
    shown against the experts. (The pairs are judged in parallel, so every reply in a step is the same.)"""
    from lib.models import registry
    from tests.fake_llm_server import openai_loopback

    make_run(get_engine(), fail=())
    for a in arena.arenas():
        arena.delete_arena(a.arena_id)
    at = page().run()
    next(b for b in at.button if b.label == "Start the arena").click().run()
    aid = arena.arenas()[0].arena_id
    for _ in range(2):
        arena.cast_vote(aid, "Ada", arena.next_pair(aid, "Ada"), "left")
    with openai_loopback(monkeypatch, "sk-test-arena-judge-0000", "gpt-judge") as srv:
        srv.script.extend([("ok", "A or B")] * 2)
        at = page().run()
        at.selectbox(key="arena_judge").set_value(registry.get("openai").id).run()
        tab = at.tabs[2]
        assert any("2 of 2 voted pair(s) not yet judged" in c.value for c in tab.caption), [c.value for c in tab.caption]
        next(b for b in tab.button if b.label.startswith("Judge 2 pair(s)")).click().run()
        assert not at.exception, at.exception
        tab = at.tabs[2]
        said = " ".join(w.value for w in tab.warning)
        assert "Judged 0 pair(s). 2 reply(ies) could not be read" in said, said
        assert "For example: it answered “A or B”" in said  # the reason, in words, from the stored votes
        again = next(b for b in tab.button if b.label == "Ask again about the 2 pair(s) whose reply could not be read")
        srv.script.extend([("ok", '{"better": "tie"}')] * 4)
        again.click().run()
        assert not at.exception, at.exception
        tab = at.tabs[2]
        assert any(s.value.startswith("Judged 2 pair(s).") for s in tab.success), [s.value for s in tab.success]
        assert not any(b.label.startswith("Ask again") for b in tab.button)
        assert any(h.value.endswith("against the experts") for h in tab.subheader)

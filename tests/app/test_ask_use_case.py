"""The Ask use case (lib/app/ask.py), without Streamlit: what stops a run, the answer on screen with its settings and
what has changed since, a saved answer reopened as it was asked, and the history as its table shows it (the rules
the Ask page and its state module used to apply themselves)."""
import dataclasses

from lib.app import ask as ask_case
from lib.core import QUOTES_ONLY
from lib.qa import MODE_LABELS
from lib.qa.ask import AskResult
from lib.qa.context_passage import ContextPassage

TITLES = {"a1": "Arctic Refuge EIS (arctic.pdf)", "b2": "Fort Drum EIS"}


def settings(**over):
    base = {"question": "Is caribou habitat affected?", "models": ["m1", "m2"], "modes": ["none", "rag"],
            "scope": "a1", "k": 3, "closed": True, "balanced": False, "gold": None}
    return ask_case.Settings(**(base | over))


def test_a_run_is_refused_with_what_to_do():
    assert settings().problem() is None
    assert settings(question="  ").problem().startswith("Type a question first")
    assert settings(models=[]).problem().startswith("Choose at least one model and one context mode")
    assert settings(modes=[]).problem().startswith("Choose at least one model and one context mode")
    assert settings().missing_document() is None
    no_doc = settings(scope=None)
    assert no_doc.problem() is None
    assert no_doc.missing_document().startswith(f"{MODE_LABELS['pdf']} and {MODE_LABELS['rag']} read a document: "
                                                "choose one under “Search in” above")
    assert settings(scope=None, modes=["none", "gold"]).missing_document() is None  # no mode reads a document


def test_what_changed_since_the_answer_is_named_and_only_what_counts():
    grid = ask_case.shown(settings(scope=["a1", "b2"]), [])
    assert grid.scope == "a1,b2"  # as history keeps it
    assert grid.changed(settings(scope=["a1", "b2"])) == []
    assert grid.changed(settings(question=" Is  caribou habitat affected? ", models=["m2", "m1"],
                                 scope=["a1", "b2"])) == []  # spacing and model order do not count
    assert grid.changed(settings(scope="a1", k=5, closed=False)) == ["documents", "k", "closed (yes/no)"]
    no_rag = ask_case.shown(settings(modes=["none"]), [])
    assert no_rag.changed(settings(modes=["none"], k=9, balanced=True, scope="b2")) == []  # nothing retrieved
    old = ask_case.shown(settings(k=None, balanced=None), [])  # an old record: k and balanced unknown
    assert old.changed(settings(k=9, balanced=True)) == []


def test_the_gold_passage_is_kept_only_where_gold_mode_ran_and_read_from_the_answers():
    gold = AskResult(model="m1", mode="gold", answer="yes", closed=True, verdict="yes",
                     contexts=[ContextPassage("The herd calves on the coastal plain.")], question="q")
    assert ask_case.shown(settings(modes=["gold"]), [gold]).gold == "The herd calves on the coastal plain."
    assert ask_case.shown(settings(modes=["none"], gold="typed"), []).gold is None
    grid = ask_case.shown(settings(modes=["gold"], gold="typed"), [gold])
    assert grid.gold == "typed" and grid.changed(settings(modes=["gold"], gold="other")) == ["gold passage"]


def test_the_line_over_the_answer_says_what_it_was_asked_over():
    label = lambda s: ask_case.scope_label(s, TITLES)  # noqa: E731
    assert ask_case.shown(settings(), []).asked_over(label) == \
        "Answered over Arctic Refuge EIS · 3 passages per search (k) · closed (yes/no)"
    assert ask_case.shown(settings(modes=["none"], closed=False), []).asked_over(label) == "Answered with no document"
    assert ask_case.scope_label("*", TITLES) == "all documents"
    assert ask_case.scope_label("a1,b2,zz", TITLES) == \
        "3 documents: Arctic Refuge EIS; Fort Drum EIS; a deleted document"
    assert ask_case.scope_label(float("nan"), TITLES) == ask_case.scope_label(None, TITLES) == "no document"


def test_a_saved_question_reopens_as_it_was_asked(sample_doc):
    from lib.qa import ask as ask_lib

    doc = sample_doc.doc_id
    rows = [AskResult(model=m, mode=mode, answer="x", closed=False, verdict=None, question="What is proposed?",
                      contexts=[])
            for m in ("local/extractive", "local/smollm2-135m") for mode in ("rag", "none")]
    batch = ask_lib.save_history(rows, doc, k=4, balanced=True)
    grid = ask_case.reopened(batch)
    assert grid is not None
    assert (grid.question, grid.models, grid.modes, grid.scope, grid.k, grid.balanced, grid.closed) == (
        "What is proposed?", ["local/extractive", "local/smollm2-135m"], ["rag", "none"], doc, 4, True, False)
    assert len(grid.rows) == 4 and grid.changed(ask_case.Settings("What is proposed?", grid.models, grid.modes,
                                                                  doc, 4, False, True)) == []
    assert ask_case.reopened("no-such-batch") is None
    hist = [h for h in ask_lib.load_history() if h.batch_id == batch]
    table = ask_case.history_table(hist, {"local/extractive": "Extractive baseline"}, {doc: "Sample EIS"})
    # one row per question; no "By" where only the local user asks (sign-in off)
    assert len(table) == 1 and list(table[0]) == [c for c in ask_case.HISTORY_COLUMNS if c != "By"]
    assert table[0]["Question"] == "What is proposed?" and table[0]["Answers"] == "4 from 2 models"
    assert table[0]["Documents"] == "Sample EIS" and table[0]["Failed"] == "" and table[0]["Yes / no"] == ""
    assert len(table[0]["Asked"]) == 16
    named = dataclasses.replace(hist[0], asked_by="ada@epa.gov")  # asked by an account: the column says whose question it was
    assert ask_case.history_table([named], {}, {})[0]["By"] == "ada@epa.gov"
    closed = [AskResult(model="local/extractive", mode=mode, answer="x", closed=True, verdict=v, question="Is it?",
                        contexts=[], error=e) for mode, v, e in (("rag", "yes", None), ("none", None, None),
                                                                 ("gold", None, "the server timed out"),
                                                                 ("pdf", QUOTES_ONLY, None))]
    second = ask_lib.save_history(closed, doc, k=4)
    again = ask_case.history_table([h for h in ask_lib.load_history() if h.batch_id == second], {}, {})
    assert (again[0]["Answers"], again[0]["Yes / no"], again[0]["Failed"]) == (
        "4 from 1 model", "yes 1 · quotes only 1 · none 1", 1)  # every verdict counted, in words
    choices = ask_case.history_choices(hist * 2, {doc: "Sample EIS"})
    assert list(choices) == [batch] and choices[batch].endswith(" · What is proposed? · Sample EIS")
    long = ("Which alternative would remove the most acres of forested wetland along the northern haul road, and "
            "what compensatory mitigation does the EIS propose for it?")
    third = ask_lib.save_history([dataclasses.replace(rows[0], question=long)], doc, k=4)
    picked = ask_case.history_choices([h for h in ask_lib.load_history() if h.batch_id == third], {})[third]
    # cut at a word and said to be cut (it was cut mid-word at 50 characters, with nothing to say so)
    assert " · Which alternative would remove the most acres of forested wetland along the northern haul …" in picked


def test_the_gold_picker_gives_each_item_its_own_passage():
    from lib.evaluation.benchmark import load_sample_items

    items = load_sample_items()
    choices = ask_case.gold_choices()
    assert len(choices) == len(items) == 20
    for it in items:
        [label] = [k for k in choices if k.startswith(f"{it.id} · ")]
        assert choices[label] == it.context and label.split(" · ")[1] == it.question_type
        assert len(label) <= len(it.id) + len(it.question_type) + 6 + 90

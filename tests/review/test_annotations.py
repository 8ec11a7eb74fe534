import multiprocessing as mp
import time

import pytest
from sqlalchemy import func, select

from lib.core import access
from lib.core.access import Actor, Role
from lib.core.errors import UserError
from lib.evaluation.benchmark.dataset import Item
from lib.review import annotations as ann
from lib.review import reviewers
from lib.storage import accounts, schema, tables
from lib.storage.engine import get_engine


def make_items(n):
    return [Item(id=f"I{i}", question_type="recall", question=f"Q{i}?", answer=f"A{i}", context=f"C{i}", doc="d",
                 page_number=i) for i in range(n)]


EXPERT = Actor("ann@epa.gov", Role.EXPERT)  # sign-in off: names not checked, roles are


@pytest.fixture
def engine(tmp_path):
    return get_engine(f"sqlite:///{tmp_path / 'labels.db'}")


def test_batch_is_seeded_and_shared(engine):
    ann.add_items(make_items(30), "set1", engine)
    b1 = ann.create_batch("set1", 10, seed=7, engine=engine)
    b2 = ann.create_batch("set1", 10, seed=7, engine=engine)
    assert b1 == b2 and len(ann.batch_items(b1, engine)) == 10
    assert ann.batch_items(b1, engine) != ann.batch_items(ann.create_batch("set1", 10, seed=8, engine=engine), engine)
    with pytest.raises(UserError):
        ann.create_batch("nothing", 5, engine=engine)


def test_relabel_replaces_and_keeps_history(engine):
    ann.save_label("I1", "ann", "answer_correct", "yes", engine)
    ann.save_label("I1", "ann", "answer_correct", "no", engine)
    labels = ann.labels(engine)
    assert [(lb.annotator, lb.value) for lb in labels] == [("ann", "no")]
    assert [h.value for h in ann.history(engine)] == ["yes", "no"]
    with pytest.raises(UserError):
        ann.save_label("I1", "ann", "answer_correct", "perhaps", engine)
    with pytest.raises(UserError):
        ann.save_label("I1", " ", "answer_correct", "yes", engine)


def test_disagreements_and_adjudication(engine):
    for who, v in (("A", "yes"), ("B", "no")):
        ann.save_review("I1", who, {"type_correct": "yes", "answer_correct": v, "proof_supports": "yes"}, engine)
    dis = ann.disagreements(engine=engine)
    assert [(d.item_id, d.label) for d in dis] == [("I1", "answer_correct")]
    ann.adjudicate("I1", "answer_correct", "yes", engine)
    final = {(r.item_id, r.label): (r.value, r.how) for r in ann.adjudicated_set(engine)}
    assert final[("I1", "answer_correct")] == ("yes", "adjudicated")
    assert final[("I1", "type_correct")] == ("yes", "unanimous")
    assert all(lb.annotator != reviewers.ADJUDICATOR for lb in ann.labels(engine))
    assert ann.done_items("A", ["I1", "I2"], engine) == {"I1"}


def _writer(url, who, n, q):
    try:
        eng = get_engine(url)
        for i in range(n):
            ann.save_label(f"I{i}", who, "answer_correct", "yes" if i % 2 else "no", eng)
            ann.save_label(f"I{i}", who, "proof_supports", "yes", eng)
        q.put("ok")
    except Exception as exc:  # noqa: BLE001 - report to the parent
        q.put(repr(exc))


def concurrent_writers(url, n=60):
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(url, who, n, q)) for who in ("alice", "bob")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    return [q.get(timeout=5) for _ in procs]


def test_two_processes_saving_at_once_sqlite(tmp_path):
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    get_engine(url)  # create tables first, as the app does at start
    assert concurrent_writers(url) == ["ok", "ok"]
    eng = get_engine(url)
    with eng.connect() as c:
        assert c.execute(select(func.count()).select_from(tables.labels)).scalar() == 2 * 60 * 2
        assert c.execute(select(func.count()).select_from(tables.label_history)).scalar() == 2 * 60 * 2


def test_postgres_store_and_two_processes_at_once(pg_url):
    eng = get_engine(pg_url)
    assert eng.dialect.name == "postgresql"
    ann.add_items(make_items(5), "pg", eng)
    ann.save_label("I1", "ann", "answer_correct", "yes", eng)
    ann.save_label("I1", "ann", "answer_correct", "no", eng)
    assert [(lb.value) for lb in ann.labels(eng)] == ["no"]
    assert concurrent_writers(pg_url) == ["ok", "ok"]
    with eng.connect() as c:
        assert c.execute(select(func.count()).select_from(tables.labels)).scalar() == 1 + 2 * 60 * 2


# ---- issue 10: all-or-nothing imports, text kept as written, safe exports, identity ----------------------------

from lib.core.stats.agreement import Label  # noqa: E402
from lib.review.labels_csv import read_labels_csv  # noqa: E402

HEADER = "item_id,annotator,label,value\n"


def _values(engine):
    return {(lb.item_id, lb.annotator, lb.label): lb.value for lb in ann.labels(engine, include_adjudicated=True)}


def test_rejected_import_changes_nothing(engine):
    ann.save_label("I1", "Alice", "answer_correct", "no", engine)
    ann.save_label("I1", "Bob", "answer_correct", "yes", engine)
    before, hist = _values(engine), ann.history(engine)
    text = HEADER + "I1,Alice,answer_correct,yes\nI1,Bob,answer_correct,no\nI2,Carol,answer_correct,maybe\n"
    with pytest.raises(UserError) as exc:
        ann.import_labels(read_labels_csv(text), engine)
    assert _values(engine) == before and ann.history(engine) == hist  # Alice still no, Bob still yes
    problems = exc.value.problems
    assert [(p.row, p.column) for p in problems] == [(4, "value")]
    assert "maybe" in problems[0].reason and "nothing" in str(exc.value).lower()


def test_import_report_lists_every_bad_row(engine):
    text = (HEADER + "I1,Alice,answer_correct,yes\nI1,[adjudicated],answer_correct,no\nI2,Alice,colour,blue\n"
            "I3,Alice,proof_supports,perhaps\nI4,Alice,true_type,sonnet\n")
    with access.acting_as(EXPERT), pytest.raises(UserError) as exc:  # final labels: not an expert's to import
        ann.import_labels_csv(text, engine=engine)
    assert [(p.row, p.column) for p in exc.value.problems] == [(3, "annotator"), (4, "label"), (5, "value"),
                                                                (6, "value")]
    assert ann.labels(engine, include_adjudicated=True) == []
    # CSV-level problems (empty cells, duplicates) come in the same report, with the semantic ones
    text = HEADER + "I1,Alice,answer_correct,\nI1,Bob,answer_correct,yes\nI1,Bob,answer_correct,no\nI2,B,x,y\n"
    with pytest.raises(UserError) as exc:
        ann.import_labels_csv(text, engine=engine)
    assert [(p.row, p.column) for p in exc.value.problems] == [(2, "value"), (4, "item_id"), (5, "label")]


def test_import_all_good_is_one_write(engine):
    text = HEADER + "".join(f"I{i},Alice,answer_correct,{'YES' if i % 2 else 'No'}\n" for i in range(50))
    assert ann.import_labels_csv(text, engine=engine) == 50
    assert {lb.value for lb in ann.labels(engine)} == {"yes", "no"}
    assert len(ann.history(engine)) == 50


COMMENT = "Proof on Page 12 says 1,200 Acres; see EIS Table ES-3"


def test_round_trip_keeps_free_text_as_written(engine, tmp_path):
    ann.save_review("I1", "Alice", {"type_correct": "no", "true_type": "Problem Solving", "answer_correct": "Yes",
                                    "proof_supports": "yes", "comment": COMMENT}, engine)
    got = _values(engine)
    assert got[("I1", "Alice", "comment")] == COMMENT
    assert got[("I1", "Alice", "true_type")] == "problem-solving"  # controlled values are normalised
    assert got[("I1", "Alice", "answer_correct")] == "yes"
    assert ann.import_labels_csv(ann.labels_csv(engine), engine=engine) == 5  # re-import over the same store
    assert _values(engine)[("I1", "Alice", "comment")] == COMMENT
    other = get_engine(f"sqlite:///{tmp_path / 'other.db'}")
    ann.import_labels_csv(ann.labels_csv(engine), engine=other)
    assert _values(other)[("I1", "Alice", "comment")] == COMMENT
    assert Label("I1", "Alice", "comment", COMMENT) in read_labels_csv(ann.labels_csv(engine))


FORMULAS = ['=HYPERLINK("http://x","Click")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "'=already quoted",
            "'plain apostrophe", "a\nmulti-line, \"quoted\" comment", "carriage\rreturn",
            "\tleading tab kept out by strip", "-", "Proof on Page 12 says 1,200 Acres; see EIS Table ES-3"]


def test_exports_are_neutralised_and_round_trip_byte_for_byte(engine, tmp_path):
    evil_id = "+cmd|' /C calc'!A0"
    for n, text in enumerate(FORMULAS):
        ann.save_label(f"I{n}", "Alice", "comment", text, engine)
    for who, v in (("Alice", "yes"), ("Bob", "no")):
        ann.save_label(evil_id, who, "answer_correct", v, engine)
    ann.save_label("=1+1", "@alice", "proof_supports", "yes", engine)
    ann.adjudicate(evil_id, "answer_correct", "no", engine)
    exported = ann.labels_csv(engine)
    import csv
    import io

    cells = [c for row in csv.reader(io.StringIO(exported, newline="")) for c in row]
    assert "'" + evil_id in cells and "'" + FORMULAS[0] in cells and "'=1+1" in cells and "'@alice" in cells
    assert evil_id not in cells and FORMULAS[0] not in cells and "''=already quoted" in cells
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    final = ann.adjudicated_csv(engine)
    assert f"'{evil_id}" in final and "\n=1+1" not in final and f"\n{evil_id}" not in final
    other = get_engine(f"sqlite:///{tmp_path / 'copy.db'}")
    ann.import_labels_csv(exported, engine=other)
    assert ann.labels_csv(other) == exported  # byte for byte
    assert ann.adjudicated_csv(other) == final
    assert _values(other) == _values(engine)  # the stored text is the original, not the escaped cell


def test_import_of_final_labels_needs_an_adjudicator(engine):
    text = HEADER + "I1,[adjudicated],answer_correct,yes\n"
    with access.acting_as(EXPERT), pytest.raises(UserError) as exc:
        ann.import_labels_csv(text, engine=engine)
    assert exc.value.problems[0].column == "annotator" and "adjudicator role" in exc.value.problems[0].reason
    with access.acting_as(Actor("judy@epa.gov", Role.ADJUDICATOR)):
        assert ann.import_labels_csv(text, engine=engine) == 1


@pytest.mark.parametrize("name", ["[adjudicated]", "[Adjudicated]", " [me] ", "(system)", "<judge>", "Judge",
                                  "GPT-4 judge", "local/smollm2-135m", "openai/gpt-4o-mini", "LLM", "adjudicator",
                                  "smollm2", "extractive"])
def test_reserved_names_cannot_be_typed(engine, name):
    assert reviewers.reserved_name_reason(name)
    with pytest.raises(UserError, match="reserved"):
        ann.save_label("I1", name, "answer_correct", "yes", engine)
    with pytest.raises(UserError, match="reserved"):
        reviewers.check_reviewer_name(name)
    assert ann.labels(engine, include_adjudicated=True) == []


@pytest.mark.parametrize("name", ["Alice", "Bob O'Brien", "ana.lopez@epa.gov", "Dr. Smith", "Judith", "Judgeman",
                                  "Ben Okafor (NEPA reviewer)"])
def test_ordinary_names_are_fine(engine, name):
    assert reviewers.reserved_name_reason(name) is None
    ann.save_label("I1", name, "answer_correct", "yes", engine)


def test_adjudicators_setting_becomes_the_adjudicator_role(tmp_path, monkeypatch):
    """NEPAQA_ADJUDICATORS is read once, by the store's migration (schema step 13), into the role table."""
    monkeypatch.setenv("NEPAQA_ADJUDICATORS", " Alice Smith , bob@epa.gov,,")
    engine = get_engine(f"sqlite:///{tmp_path / 'migrated.db'}")
    rows = {r.subject: (r.role, r.source) for r in accounts.rows(engine)}
    assert rows == {"bob@epa.gov": (Role.ADJUDICATOR, "migration")}  # a typed name is no signed-in account
    step = next(s for s in schema.ledger(engine) if s.name == "NEPAQA_ADJUDICATORS becomes the adjudicator role")
    assert "1 e-mail(s)" in step.note and "alice smith" in step.note
    assert accounts.role_for("BOB@epa.gov", engine=engine) is Role.ADJUDICATOR
    with access.acting_as(EXPERT), pytest.raises(UserError, match="adjudicator role"):
        ann.adjudicate("I1", "answer_correct", "yes", engine)
    assert ann.labels(engine, include_adjudicated=True) == []
    with access.acting_as(Actor("bob@epa.gov", Role.ADJUDICATOR, signed_in=True)):
        ann.adjudicate("I1", "answer_correct", "yes", engine)
    assert _values(engine) == {("I1", reviewers.ADJUDICATOR, "answer_correct"): "yes"}


# ---- the Validate page (AppTest), on a private database -----------------------------------------------------------

from streamlit.testing.v1 import AppTest  # noqa: E402

from tests.conftest import ROOT, gated_page  # noqa: E402


@pytest.fixture
def page_db(tmp_path, monkeypatch):
    monkeypatch.setenv("NEPAQA_DATABASE_URL", f"sqlite:///{tmp_path / 'page.db'}")
    monkeypatch.delenv("NEPAQA_ADJUDICATORS", raising=False)
    eng = get_engine()
    ann.add_items(make_items(2), "set", eng)
    for who, v in (("Ada", "yes"), ("Ben", "no")):
        ann.save_review("I0", who, {"type_correct": "yes", "answer_correct": v, "proof_supports": "yes"}, eng)
    return eng


def validate_page() -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / "validate.py"), default_timeout=120)


def identify(at, name: str):
    """Pick ``name`` from the experts list, or add it as a new expert (typed), as a reviewer would."""
    picks = [sb for sb in at.selectbox if sb.key == "expert_pick"]
    if picks and name in picks[0].options:
        return picks[0].set_value(name).run()
    if picks and picks[0].options and not [t for t in at.text_input if t.key == "expert_name"]:
        picks[0].set_value(picks[0].options[-1]).run()  # "Add a new expert…"
    return at.text_input(key="expert_name").input(name).run()


def _texts(at) -> str:
    return " ".join(e.value for kind in ("markdown", "caption", "info", "warning", "error", "success", "text")
                    for e in getattr(at, kind))


def _buttons(at) -> list[str]:
    return [b.label for b in at.button]


def test_page_without_login_says_names_are_typed_and_refuses_reserved(page_db):
    at = validate_page().run()
    assert not at.exception
    assert "not authenticated" in " ".join(c.value for c in at.caption)
    identify(at, "[adjudicated]")
    assert any("reserved" in e.value for e in at.error)
    assert not at.get("progress")  # no review under a reserved name
    identify(at, "Judge Model")
    assert any("reserved" in e.value for e in at.error)


def app_as(email: str) -> AppTest:
    """The Validate page behind the app's sign-in gate, as a signed-in account."""
    at = AppTest.from_function(gated_page, args=(str(ROOT / "pages" / "validate.py"),), default_timeout=120)
    at.user = {"is_logged_in": True, "email": email, "name": email.split("@")[0].title(), "exp": time.time() + 3600}
    return at.run()


def test_page_adjudication_needs_the_role(page_db, monkeypatch):
    monkeypatch.setenv("NEPAQA_ROLES", "ada@epa.gov=expert, cleo@epa.gov=adjudicator")
    at = app_as("ada@epa.gov")
    assert not at.exception
    assert "Set final label" not in _buttons(at) and "adjudicator role" in _texts(at)
    at = app_as("cleo@epa.gov")
    assert not [t for t in at.text_input if t.key == "expert_name"]  # no typed names when signed in
    assert "not authenticated" not in _texts(at) and "Reviewing as cleo@epa.gov" in _texts(at)
    next(b for b in at.button if b.label == "Set final label").click().run()
    assert not at.exception
    assert _values(page_db)[("I0", reviewers.ADJUDICATOR, "answer_correct")] == "yes"  # the radio's first value


def test_page_without_sign_in_is_the_local_user(page_db):
    at = validate_page().run()
    identify(at, "Ada")
    assert "not authenticated" in _texts(at) and "Set final label" in _buttons(at)  # the local user is an admin

def test_page_import_is_all_or_nothing_with_a_report(page_db):
    before = _values(page_db)
    at = validate_page().run()
    bad = (HEADER + "I0,Ada,answer_correct,no\nI0,Ben,answer_correct,yes\nI1,Cy,answer_correct,maybe\n").encode()
    at.file_uploader(key="labels_upload").set_value(("labels.csv", bad, "text/csv")).run()
    next(b for b in at.button if b.label == "Import").click().run()
    assert not at.exception
    assert any("Nothing was imported" in e.value for e in at.error)
    report = at.dataframe[-1].value  # the report, in the last tab
    assert list(report.columns) == ["row", "column", "reason"] and report.iloc[0]["row"] == 4
    assert _values(page_db) == before
    at.file_uploader(key="labels_upload").set_value(("labels.csv", "item_id,annotator,label,value\nI1,Zoë,comment,café\n"
                                                     .encode("latin-1"), "text/csv")).run()
    next(b for b in at.button if b.label == "Import").click().run()
    assert any("UTF-8" in e.value for e in at.error) and _values(page_db) == before
    good = (HEADER + f'I1,Cy,comment,"{COMMENT}"\n').encode("utf-16")
    at.file_uploader(key="labels_upload").set_value(("labels.csv", good, "text/csv")).run()
    next(b for b in at.button if b.label == "Import").click().run()
    assert any("Imported 1" in s.value for s in at.success)
    assert _values(page_db)[("I1", "Cy", "comment")] == COMMENT


def test_page_shows_item_and_comment_text_as_text(page_db):
    evil = "![x](http://127.0.0.1:9/leak?d=1) **bold** <img src=x>"
    ann.add_items([Item(id="E1", question_type="recall", question=evil, answer=evil, context=evil, doc=evil,
                        page_number=1)], "evil", page_db)
    ann.save_label("E1", "Ada", "comment", evil, page_db)
    at = validate_page().run()
    identify(at, "Ada")
    at.selectbox(key="review_source").set_value("evil").run()
    assert not at.exception
    assert any(evil in t.value for t in at.text)
    md = [m.value for m in at.markdown] + [c.value for c in at.caption] + [x.label for x in at.expander]
    assert not [m for m in md if "](http" in m and "\\]" not in m], md


def _downloads(monkeypatch) -> dict[str, bytes]:
    """The bytes of each st.download_button, by file name (AppTest keeps them in its in-memory media store)."""
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    got: dict[str, bytes] = {}
    real = MemoryMediaFileStorage.load_and_get_id

    def spy(self, path_or_data, mimetype, kind, filename=None):
        if filename and isinstance(path_or_data, (bytes, str)):
            got[filename] = path_or_data.encode() if isinstance(path_or_data, str) else path_or_data
        return real(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", spy)
    from streamlit.runtime.media_file_manager import MediaFileManager
    real_deferred = MediaFileManager.add_deferred

    def clicked(self, data_callable, mimetype, coordinates, file_name=None, **kw):  # a download made on its click:
        data = data_callable()  # made now, as the click would (and recorded as an export then)
        got[file_name] = data.encode() if isinstance(data, str) else data
        return real_deferred(self, data_callable, mimetype, coordinates, file_name=file_name, **kw)

    monkeypatch.setattr(MediaFileManager, "add_deferred", clicked)
    return got


def test_page_csv_exports_are_safe_and_round_trip(page_db, tmp_path, monkeypatch):
    evil_id = "+cmd|' /C calc'!A0"
    ann.save_label(evil_id, "Ada", "comment", '=HYPERLINK("http://x","Click")', page_db)
    for who, v in (("Ada", "yes"), ("Ben", "no")):
        ann.save_label(evil_id, who, "answer_correct", v, page_db)
    ann.adjudicate(evil_id, "answer_correct", "yes", page_db)
    files = _downloads(monkeypatch)
    validate_page().run()
    labels, final = files["labels.csv"].decode(), files["adjudicated.csv"].decode()
    assert f"'{evil_id}" in labels and "'=HYPERLINK" in labels and f"'{evil_id}" in final
    assert "\n=" not in labels and "\n+" not in labels and "\n+" not in final
    # import our own export into an empty store through the page, as an adjudicator: the same bytes come back out
    first = dict(files)
    monkeypatch.setenv("NEPAQA_DATABASE_URL", f"sqlite:///{tmp_path / 'fresh.db'}")
    monkeypatch.setenv("NEPAQA_ADJUDICATORS", "Cleo")
    at = validate_page().run()
    identify(at, "Cleo")
    at.file_uploader(key="labels_upload").set_value(("labels.csv", first["labels.csv"], "text/csv")).run()
    next(b for b in at.button if b.label == "Import").click().run()
    assert any("Imported 10 labels" in s.value for s in at.success), [e.value for e in at.error] + [s.value for s in at.success]
    files.clear()
    validate_page().run()
    assert files["labels.csv"] == first["labels.csv"] and files["adjudicated.csv"] == first["adjudicated.csv"]


def test_experts_list_and_typo_guard(engine, monkeypatch):
    monkeypatch.setenv("NEPAQA_ADJUDICATORS", "Cleo")
    for who in ("Ada Lovelace", "ben"):
        ann.save_label("I0", who, "answer_correct", "yes", engine)
    ann.adjudicate("I0", "answer_correct", "yes", engine)
    assert ann.experts(engine) == ["Ada Lovelace", "ben"]  # no [adjudicated], no unlabelled adjudicator; case-blind
    known = ann.experts(engine)
    assert reviewers.similar_expert("ada lovelace", known) == "Ada Lovelace"
    assert reviewers.similar_expert("Ada Lovelance", known) == "Ada Lovelace"  # one letter off
    assert reviewers.similar_expert("Dana Scully", known) is None
    ann.save_label("I0", "ben", "comment", "the passage says otherwise", engine)
    assert ann.item_labels("I0", engine)["ben"] == {"answer_correct": "yes", "comment": "the passage says otherwise"}
    assert ann.item_labels("I0", engine)[reviewers.ADJUDICATOR] == {"answer_correct": "yes"}


def test_a_review_is_saved_only_with_all_three_questions_answered(engine):
    """The rule Validate's page used to keep alone: saving needs all three answers (type, answer, proof); the
    suggested type, comment and support calibration stay optional. Nothing of an incomplete review is written."""
    with pytest.raises(UserError, match="Answer the three questions before saving"):
        ann.save_review("I9", "Alice", {"type_correct": "yes", "answer_correct": "yes", "comment": "half done"},
                        engine)
    assert [lb for lb in ann.labels(engine) if lb.item_id == "I9"] == []
    assert not ann.review_complete({"type_correct": "yes", "answer_correct": "", "proof_supports": "yes"})
    ann.save_review("I9", "Alice", {"type_correct": "yes", "answer_correct": "no", "proof_supports": "yes"}, engine)
    assert sorted((lb.label, lb.value) for lb in ann.labels(engine) if lb.item_id == "I9") == [
        ("answer_correct", "no"), ("proof_supports", "yes"), ("type_correct", "yes")]
    from lib.review import judge_review

    assert judge_review.QUESTIONS is ann.QUESTIONS  # the judge is asked what the experts are asked


def test_each_stored_record_has_every_column_of_its_table():
    """The records read whole from a table (``Record(**row)``) name its columns exactly: a column added to the table
    must be added to the record, or reading it would fail."""
    from dataclasses import fields

    from lib.evaluation.exam.scores import ExamAnswer
    from lib.review import arena_judge, judge_review
    from lib.storage import schema, tables

    for record, table in ((ann.ReviewItem, tables.review_items), (ann.LabelChange, tables.label_history),
                          (arena_judge.JudgeVote, tables.arena_judge_votes), (judge_review.JudgeLabel, tables.judge_labels),
                          (ExamAnswer, tables.exam_answers), (schema.LedgerStep, tables.schema_ledger)):
        assert [f.name for f in fields(record)] == list(table.c.keys()), record.__name__

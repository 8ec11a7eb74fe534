"""Metadata on covers nobody tuned the rules to: the conformance set (tests/documents/cover_layouts.py), each field
right or empty, never wrong; evidence and confidence; mended words; fragments refused; a person's edit kept
through re-extraction and re-indexing; a connected model filling only the unsure fields with structured output;
and `python -m lib metadata-eval`."""
from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest
from sqlalchemy import insert

from lib.core.errors import UserError
from lib.documents import metadata as M
from lib.documents.metadata.layout import vocabulary
from lib.documents.pdf import read_pdf_file
from lib.evaluation.metadata_eval import comparable, evaluate
from lib.models.base import ProviderError
from lib.storage import tables
from lib.storage.engine import get_engine
from tests.conftest import ROOT, metadata_panel
from tests.documents import body_states_heldout, body_states_heldout_c, cover_layouts_heldout, cover_layouts_heldout_b
from tests.documents.body_states_heldout import CASES as BODY_A
from tests.documents.cover_layouts import CASES, EXPECTED_FIELDS, build, write_set
from tests.documents.cover_layouts_heldout import HELDOUT
from tests.documents.cover_layouts_heldout_b import HELDOUT_B
from tests.fake_llm_server import FakeLLMServer, openai_loopback

# Held-out covers written by helpers who never saw the rules (tests/documents/cover_layouts_heldout*.py). They were
# measured once as they came (the README gives those first figures), then general rules were added where they
# showed a class of failure, so they are seen now. Two readings still differ from what their writer put down, and
# both are defensible; the test accepts that reading, the writer's value or an empty field, and nothing else.
KNOWN_DIFFERENCES = {
    ("doe_supplemental_all_caps_summary", "lead_agency"): (
        "National Nuclear Security Administration",  # the writer: the Department of Energy, whose two offices
        "a sub-agency named under its department is taken as the lead"),  # both appear under it
    ("nmfs_fishery_amendment_responsible_agencies", "title"): (
        "Final Amendment 40 to the Fishery Management Plan for the Reef Fish Resources of the Gulf of Mexico "
        "Recreational Red Snapper Sector Separation Including Final Environmental Impact Statement",
        "the smaller 'Including Final EIS' line next to the title is kept as part of it"),
}
ALL_CASES = [*CASES, *HELDOUT, *HELDOUT_B, *BODY_A]


@pytest.fixture(scope="module")
def conformance(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("covers")
    out = {}
    for case in ALL_CASES:
        ex = read_pdf_file(build(case, folder / f"{case.name}.pdf"), 10**9)
        out[case.name] = (case, ex, M.extract(ex))
    return out


def _got(fields: dict) -> dict:
    got = {k: v.value for k, v in fields.items()}
    got["year"] = got.get("publish_date")
    return got


@pytest.mark.parametrize("name", [c.name for c in ALL_CASES])
def test_each_cover_gives_the_right_value_or_none(conformance, name):
    case, _, fields = conformance[name]
    got = _got(fields)
    for f in EXPECTED_FIELDS:
        if (name, f) in KNOWN_DIFFERENCES:  # the known reading, or a fix: the writer's value or nothing
            allowed = (comparable(f, case.expected.get(f)), None, comparable(f, KNOWN_DIFFERENCES[name, f][0]))
            assert comparable(f, got.get(f)) in allowed
            continue
        want, shown = comparable(f, case.expected.get(f)), comparable(f, got.get(f))
        assert shown is None or shown == want, f"{name}: {f} shown {got.get(f)!r}, a careful reader wrote {case.expected.get(f)!r}"
        if want is None:
            assert shown is None, f"{name}: {f} should be empty (the document does not say), got {got.get(f)!r}"
    for f, item in fields.items():  # every value says where it came from and how sure the rules are
        assert M.THRESHOLD <= item.confidence <= 1
        ev = item.evidence
        assert ev["rule"] and (("page" in ev and ev["line"] >= 1) or "property" in ev), (f, ev)


def test_an_entry_that_glues_two_agencies_is_neither_of_them():
    """metadata-eval compares each cooperating agency's entry by every agency it names: a department written with
    its own sub-agency is the sub-agency, but two agencies glued into one entry equal neither."""
    key = lambda v: comparable("cooperating_agencies", v)  # noqa: E731
    assert key("U.S. Department of Agriculture — Forest Service; Bureau of Land Management") == \
        key("Forest Service; Bureau of Land Management")
    glued = key("Bureau of Land Management, U.S. Fish and Wildlife Service")
    assert glued != key("Bureau of Land Management") and glued != key("U.S. Fish and Wildlife Service")
    assert len(glued) == 1  # one entry, still counted as one (wrong) value
    assert key("Nye County Board of Commissioners, Bureau of Land Management") != key("Bureau of Land Management")


def test_the_set_meets_the_precision_and_recall_goals(tmp_path):
    assert len(CASES) >= 15 and len(HELDOUT) + len(HELDOUT_B) >= 20
    result = evaluate(write_set(tmp_path))
    assert result["read"] == len(CASES) and not result["refused"]
    table = {r["field"]: r for r in result["fields"]}
    # no cover of this set says who prepared it (the held-out sets do): nothing shown there, which is right
    assert [f for f, r in table.items() if not r["shown"]] == ["prepared_by"] and not table["prepared_by"]["stated"]
    for f, r in table.items():
        if not r["shown"]:
            continue
        assert r["precision"]["n"] == r["shown"] and r["precision"]["ci95"] is not None
        assert r["precision"]["value"] >= 0.95, (f, r)
    for f in ("title", "lead_agency", "document_type", "year"):
        assert table[f]["recall"]["value"] >= 0.8, (f, table[f])


def test_the_held_out_covers_pooled(tmp_path):
    """Both held-out sets together: precision at least 0.95 on every field, the known differences counted against
    it."""
    right: dict[str, int] = {}
    shown: dict[str, int] = {}
    for module in (cover_layouts_heldout, cover_layouts_heldout_b):
        result = evaluate(module.write_set(tmp_path / module.__name__.rsplit(".", 1)[-1]))
        for r in result["fields"]:
            right[r["field"]] = right.get(r["field"], 0) + r["right"]
            shown[r["field"]] = shown.get(r["field"], 0) + r["shown"]
    for f in shown:
        assert right[f] / shown[f] >= 0.95, (f, right[f], shown[f])


def test_states_read_from_the_body_where_the_cover_is_silent(tmp_path):
    """Body sentences A (tests/documents/body_states_heldout.py): 16 EISs whose cover names no state, 10 saying in
    their prose where the project lies and 6 naming states only in other roles. Measured once as it came
    (precision 3/3, recall 3/10; bench/README.md), then the rule was widened, so the set is seen now: every state
    shown is right, nothing is shown for the 6, and the 10 are read, each marked as read from the body."""
    result = evaluate(body_states_heldout.write_set(tmp_path))
    states = next(r for r in result["fields"] if r["field"] == "states")
    assert (states["stated"], states["shown"], states["right"]) == (10, 10, 10), result["differences"]
    for case in BODY_A:
        got = M.extract(read_pdf_file(tmp_path / f"{case.name}.pdf", 10**9)).get("states")
        if case.expected["states"] is None:
            assert got is None, (case.name, got)
        else:
            assert got is not None and got.source == "body_text" and got.evidence["page"] >= 2, (case.name, got)
            assert got.evidence["quote"] and got.confidence < M.SURE  # a connected model may still correct it


def test_body_set_b_held_out_shows_no_wrong_state(tmp_path):
    """Body sentences B (tests/documents/body_states_heldout_c.py): 12 more EISs, written after the rule by a helper
    who saw neither it nor set A, in each agency's own voice. Measured once as it came, and nothing was changed
    for it: the one state set shown is right, nothing is shown for the 5 national actions, and 6 of the 7 places
    are missed (said in ways the rule does not read: "the line would cross Oklahoma…", "…would consist of a
    converter station in Texas County, Oklahoma", a reservation's acres). Missed is allowed; wrong is not."""
    result = evaluate(body_states_heldout_c.write_set(tmp_path))
    states = next(r for r in result["fields"] if r["field"] == "states")
    assert (states["stated"], states["shown"], states["right"]) == (7, 1, 1), result["differences"]
    assert not [d for d in result["differences"] if d["field"] == "states" and d["kind"] != "missed"]


def test_the_title_page_is_found_past_a_picture_cover_and_a_file_label(conformance):
    case, ex, fields = conformance["image_cover_regional_summary"]
    assert ex.image_share[1] > 0.5  # page 1 is a photo whose text layer describes it
    assert fields["title"].evidence["page"] == 3 and fields["title"].source == "cover_text"
    assert fields["title"].value != "Eastern Executive Summary"  # the Title property: a short file label
    assert fields["project_title"].value == "Nationwide Public Safety Broadband Network"  # not the region
    # the agency from the title page's first line, the contact block and the Author property, all agreeing
    assert fields["lead_agency"].evidence["agreeing"] >= 3
    _, _, label = conformance["short_label_title_property"]
    assert label["title"].value.startswith("Alpine Mountain Ski Area Expansion")


def test_an_annual_report_gets_no_nepa_field(conformance):
    _, _, fields = conformance["annual_report_not_nepa"]
    assert set(fields) == {"title", "publish_date"}  # the document's own title and date; nothing of a NEPA review


def test_a_pdf_not_known_to_be_a_review_gets_no_agency_from_its_author_alone(tmp_path):
    """No cover and no document type (an appendix volume, a report): the Author property alone does not make a
    lead agency, since for a document that is not a NEPA review there is none (a change from before, when the
    Author alone was taken)."""
    from tests.documents.cover_layouts import Case, _body

    case = Case("body_only", [_body("caribou habitat", "the refuge")], {}, {"author": "Bureau of Land Management"})
    assert M.extract(read_pdf_file(build(case, tmp_path / "body.pdf"), 10**9)) == {}


def test_broken_words_are_mended_only_where_a_piece_is_not_a_word():
    vocab = vocabulary(["The tower and the ambulance stood in the valley at sunset with firefighters.", "The sun set."])
    text = "a cell tow er in a river val ley with fire fight ers and an ambu lance\nEnviron-\nmental Fort Belvoir"
    mended = M.mend_words(text, vocab)
    assert "tower" in mended and "valley" in mended and "firefighters" in mended and "ambulance" in mended
    assert "Environmental" in mended
    assert "Fort Belvoir" in mended  # a new capitalised word is not the end of the one before
    assert M.mend_words("the sun set on the river", vocab) == "the sun set on the river"  # both pieces are words


@pytest.mark.parametrize("title, project", [
    ("Alaska Executive Summary", None),  # a region's name is not a project's
    ("Eastern United States Final Programmatic Environmental Impact Statement", None),
    ("Region 5 Final EIS", None),
    ("Pipeline Final EIS", None),  # one word
    ("The preparation of this Programmatic Environmental Impact Statement relates to the role of", None),
    ("Record of Decision for the Chokecherry and Sierra Madre Wind Energy Project",
     "Chokecherry and Sierra Madre Wind Energy Project"),
    ("Nationwide Public Safety Broadband Network Final Programmatic Environmental Impact Statement for the Eastern "
     "United States", "Nationwide Public Safety Broadband Network"),
])
def test_fragments_are_never_project_titles(title, project):
    assert M.project_title_from(title) == project


def test_a_state_named_feature_is_not_a_state(tmp_path):
    from tests.documents.cover_layouts import Case

    case = Case("river", [[("line", "Draft Environmental Impact Statement", 20, True),
                           ("line", "Colorado River Basin Salinity Control", 20, True),
                           ("line", "Mesa County, Colorado", 12)]], {})
    fields = M.extract(read_pdf_file(build(case, tmp_path / "river.pdf"), 10**9))
    assert fields["states"].value == ["CO"]  # from the county line; "Colorado River" alone would not say it
    case = Case("river2", [[("line", "Draft Environmental Impact Statement", 20, True),
                            ("line", "Lower Colorado River Habitat Plan", 20, True),
                            ("line", "Clark County, Nevada", 12)]], {})
    fields = M.extract(read_pdf_file(build(case, tmp_path / "river2.pdf"), 10**9))
    assert fields["states"].value == ["NV"]


# ----- covers that tempt a wrong value (from the review of this work) --------------------------------------------
def _cover(tmp_path, name: str, pages: list, props: dict | None = None) -> dict:
    from tests.documents.cover_layouts import Case, _body

    case = Case(name, [*pages, _body("project", "the area")], {}, props or {})
    return {k: v.value for k, v in M.extract(read_pdf_file(build(case, tmp_path / f"{name}.pdf"), 10**9)).items()}


_AGENCY = ("line", "Bureau of Land Management", 12)
_TITLE = [("gap", 30), ("line", "Big Sky Mine Expansion", 20, True), ("line", "Final Environmental Impact Statement", 18, True)]


def test_deadlines_hearings_and_milestones_are_not_the_publication_date(tmp_path):
    got = _cover(tmp_path, "deadline", [[_AGENCY, *_TITLE, ("line", "Comments must be received by:", 11),
                                         ("line", "January 7, 2019", 11)]])
    assert "publish_date" not in got
    got = _cover(tmp_path, "hearing", [[_AGENCY, *_TITLE, ("line", "Public Hearing: March 12, 2019", 11),
                                        ("line", "November 2018", 12)]])
    assert got["publish_date"] == "2018-11"
    got = _cover(tmp_path, "milestones", [[_AGENCY, *_TITLE, ("line", "Draft EIS: February 2019", 11),
                                           ("line", "Final EIS: November 2019", 11)]])
    assert got.get("publish_date") in (None, "2019")  # the year both agree on, never one of the two months


@pytest.mark.parametrize("title, state", [
    ("Tennessee Gas Pipeline Company", None), ("Washington Dulles International Airport", None),
    ("Mount Washington Summit Improvements", None), ("Big Sky Mine Expansion", None)])
def test_a_state_in_a_name_is_not_the_projects_state(tmp_path, title, state):
    got = _cover(tmp_path, "named", [[_AGENCY, ("gap", 30), ("line", title, 20, True),
                                      ("line", "Final Environmental Impact Statement", 18, True)]])
    assert got.get("states") == state


def test_an_office_address_filing_line_or_city_department_is_not_the_lead_or_the_state(tmp_path):
    got = _cover(tmp_path, "office", [[("gap", 30), ("line", "Pascagoula Harbor Navigation Channel", 20, True),
                                       ("line", "Draft Environmental Impact Statement", 18, True),
                                       ("line", "U.S. Army Corps of Engineers", 12), ("line", "Mobile District, Mobile, AL", 12)]])
    assert got["lead_agency"] == "U.S. Army Corps of Engineers" and "states" not in got  # not AL: the office's city
    got = _cover(tmp_path, "filing", [[("line", "EPA EIS No. 20190045", 10), *_TITLE,
                                       ("line", "Lead Agency: Bureau of Land Management", 11)]])
    assert got["lead_agency"] == "Bureau of Land Management"  # the filing line above the title does not compete
    got = _cover(tmp_path, "city", [[("line", "City of Austin Department of Transportation", 12), ("gap", 30),
                                     ("line", "Riverside Drive Bridge Replacement", 20, True),
                                     ("line", "Environmental Assessment", 18, True)]])
    assert "lead_agency" not in got  # the city's department, not the federal one


def test_none_a_heading_and_a_sentence_are_not_values(tmp_path):
    got = _cover(tmp_path, "none", [[_AGENCY, *_TITLE, ("line", "Cooperating Agencies: None", 11)]])
    assert "cooperating_agencies" not in got
    got = _cover(tmp_path, "heading", [[_AGENCY, *_TITLE], [
        ("line", "Project Location", 12, True),
        ("line", "The mine lies north of the Nevada border in the Owyhee uplands and", 10),
        ("line", "extends across two grazing allotments.", 10)]])
    assert "location" not in got and "states" not in got
    got = _cover(tmp_path, "abstract", [[_AGENCY, *_TITLE], [
        ("line", "Abstract", 12, True),
        ("line", "This Final EIS responds to the comments received on the Draft EIS (EIS No. 20180123), and", 10),
        ("line", "describes the preferred alternative.", 10)]])
    assert "eis_number" not in got  # the Draft's number, in a sentence


def test_titles_are_whole_stamps_left_out_and_broken_words_mended(tmp_path):
    got = _cover(tmp_path, "open", [[_AGENCY, ("gap", 30), ("line", "Final Environmental Impact Statement for the", 20, True),
                                     ("line", "Sunrise Powerlink Transmission Project", 12)]])
    assert got["title"] == "Final Environmental Impact Statement for the Sunrise Powerlink Transmission Project"
    got = _cover(tmp_path, "typeonly", [[_AGENCY, ("gap", 30), ("line", "Final Environmental Impact Statement", 24, True),
                                         ("line", "Sunrise Powerlink Transmission Project", 13)]])
    assert got["project_title"] == "Sunrise Powerlink Transmission Project"
    got = _cover(tmp_path, "stamp", [[_AGENCY, ("gap", 30), ("line", "Greater Sage Grouse Plan Amendment", 20, True),
                                      ("line", "Environmental Impact Statement", 18, True), ("gap", 300),
                                      ("line", "PRELIMINARY DRAFT", 24, True)]])
    assert got["title"] == "Greater Sage Grouse Plan Amendment Environmental Impact Statement"
    got = _cover(tmp_path, "broken", [[_AGENCY, ("gap", 30), ("line", "Cell Tow er Siting Pro ject", 20, True),
                                       ("line", "Final Environ mental Impact State ment", 18, True)]])
    assert got["title"] == "Cell Tower Siting Project Final Environmental Impact Statement"
    assert got["document_type"] == "Final EIS"


# ----- a person's edit, re-extraction and re-indexing ------------------------------------------------------------
@pytest.fixture
def engine(tmp_path):
    eng = get_engine(f"sqlite:///{tmp_path / 'meta.db'}")
    with eng.begin() as c:
        c.execute(insert(tables.documents).values(doc_id="doc_a", name="a", sha256="a" * 64, status="ready:1",
                                                  n_bytes=1, n_pages=1, n_chars=1, chunk_size=200, chunk_overlap=40,
                                                  embed_model="test"))
    return eng


def test_a_persons_edit_survives_re_extraction_and_the_disagreement_is_kept(engine, conformance):
    _, _, fields = conformance["labels_agency_above"]
    with engine.begin() as c:
        M.save_extracted(c, "doc_a", fields)
    M.set_values("doc_a", {"lead_agency": "Department of Transportation", "states": "AZ"}, engine)
    now = M.get("doc_a", engine)  # said at once, before any re-extraction
    assert now["lead_agency"].extracted.value == "Federal Highway Administration"
    assert now["states"].extracted is None  # the person set what the document reads
    assert M.disagreements(now) == [
        "Lead agency: kept your value 'Department of Transportation'; the document now reads 'Federal Highway "
        "Administration' (p. 1, line 7 · Lead Agency: label)."]
    with engine.begin() as c:  # the rules read the document again
        M.save_extracted(c, "doc_a", fields)
    got = M.get("doc_a", engine)
    assert (got["lead_agency"].value, got["lead_agency"].source) == ("Department of Transportation", "person")
    assert got["lead_agency"].confidence is None
    assert got["lead_agency"].extracted.value == "Federal Highway Administration"  # said beside the edit
    assert got["lead_agency"].extracted.evidence["rule"]
    assert got["states"].extracted is None  # the rules agree with the person: nothing to say
    cli = M.cli_metadata("doc_a", engine)
    assert cli["lead_agency"]["extracted"]["value"] == "Federal Highway Administration"
    assert cli["title"]["confidence"] >= M.THRESHOLD and cli["title"]["evidence"]["page"] == 1
    assert "extracted" not in cli["title"]


def test_reindex_and_reextract_keep_edits(services, tmp_path):
    case = next(c for c in CASES if c.name == "agency_below_title")
    res = services.docs.ingest_file(str(build(case, tmp_path / "galveston.pdf")))
    engine = services.docs.engine
    got = M.get(res.doc_id, engine)
    assert got["lead_agency"].value == "U.S. Army Corps of Engineers" and got["lead_agency"].evidence["page"] == 1
    M.set_values(res.doc_id, {"lead_agency": "Department of the Army", "title": "Galveston Bay Park Plan DEIS"}, engine)
    services.docs.reindex(res.doc_id, 150, 30)
    after = services.docs.reextract_metadata(res.doc_id)
    assert (after["lead_agency"].value, after["lead_agency"].source) == ("Department of the Army", "person")
    assert after["lead_agency"].extracted.value == "U.S. Army Corps of Engineers"
    assert after["title"].value == "Galveston Bay Park Plan DEIS"
    # the kept original's layout is read again: the title page's evidence survives, not only the stored text
    assert after["document_type"].evidence["rule"] == got["document_type"].evidence["rule"]
    assert after["publish_date"].value == "2017-08"  # "8/2017" on the cover

    # the Documents page: the note beside the edit, and "Read the PDF again"
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "pages" / "documents.py"), default_timeout=180).run()
    at.selectbox(key="docs_pick").select(res.doc_id).run()
    assert any("kept your value 'Department of the Army'" in i.value and "U.S. Army Corps of Engineers" in i.value
               for i in at.info)
    next(b for b in at.button if b.label == "Read the PDF again").click().run()
    assert not at.exception and any("your edits were kept" in s.value for s in at.success)
    panel = metadata_panel(at)
    assert panel.loc["lead_agency", "value"] == "Department of the Army" and panel.loc["lead_agency", "source"] == "person"
    assert panel.loc["eis_number", "value"] == M.NOT_FOUND

    # a document whose original was not kept: a re-index keeps what its properties and layout gave, and reading
    # it again is refused with the reason instead of dropping them
    from lib.documents import originals

    before = M.get(res.doc_id, services.docs.engine)
    originals.delete(res.doc_id)
    services.docs.reindex(res.doc_id, 200, 40)
    assert M.get(res.doc_id, services.docs.engine) == before
    with pytest.raises(UserError, match="original PDF was not kept"):
        services.docs.reextract_metadata(res.doc_id)
    services.docs.delete(res.doc_id)


# ----- a connected model reads the cover when the rules are unsure -----------------------------------------------
@pytest.fixture
def llm(monkeypatch):
    with openai_loopback(monkeypatch, "sk-test-metadata-000", "gpt-test", timeout=2) as srv:
        from lib.models import registry

        yield srv, registry.get("openai")


def _reply(obj: dict) -> tuple:
    return ("ok", json.dumps(obj))


def test_the_model_fills_empty_and_unsure_fields_with_structured_output(engine, llm):
    server, model = llm
    with engine.begin() as c:  # the rules found a title surely and a date weakly (only the PDF's creation date)
        M.save_extracted(c, "doc_a", {
            "title": M.FieldValue("Palen Solar Energy Project Draft EIS", "cover_text", 0.9,
                                  {"page": 1, "line": 2, "rule": "title page, largest type"}),
            "publish_date": M.FieldValue("2017-09", "pdf_metadata", 0.6,
                                         {"property": "creationDate", "rule": "the PDF's creation date"})})
    M.set_values("doc_a", {"location": ""}, engine)  # a person cleared it: never asked
    server.script.append(_reply({
        "publish_date": "2017-08", "lead_agency": "Bureau of Land Management", "states": ["CA"],
        "document_type": "Draft EIS", "process_type": "EIS", "project_title": None, "eis_number": None,
        "cooperating_agencies": 7,  # a wrong type
        "sponsor": "SolarCo"}))  # a field it invented
    res = M.fill_with_model("doc_a", model, ["Palen Solar Energy Project\nDraft EIS\nAugust 2017"], engine,
                            properties={"title": "Palen DEIS", "author": "BLM", "producer": "ignored"})
    assert "title" not in res.asked and "location" not in res.asked and "publish_date" in res.asked
    assert res.filled == {"publish_date": "2017-08", "lead_agency": "Bureau of Land Management", "states": ["CA"],
                             "document_type": "Draft EIS", "process_type": "EIS"}
    assert res.rejected == {"cooperating_agencies": "cooperating_agencies must be a list of names, not int"}
    assert res.ignored == ["sponsor"]
    body = server.requests[-1]["body"]
    schema = body["response_format"]["json_schema"]
    assert body["response_format"]["type"] == "json_schema" and schema["strict"] is True
    assert set(schema["schema"]["required"]) == set(res.asked) and schema["schema"]["additionalProperties"] is False
    prompt = body["messages"][-1]["content"]
    assert "title: Palen DEIS" in prompt and "author: BLM" in prompt and "producer" not in prompt
    got = M.get("doc_a", engine)
    assert (got["publish_date"].value, got["publish_date"].source) == ("2017-08", "model")
    assert got["publish_date"].evidence["model"] == "openai/gpt-test"
    assert got["title"].source == "cover_text"  # sure: not replaced
    assert got["cooperating_agencies"].value is None and "sponsor" not in got

    # a re-index reads the same weak date again: the model's fill stays; a date the rules are sure of replaces it
    weak = M.FieldValue("2017-09", "pdf_metadata", 0.6, {"property": "creationDate"})
    with engine.begin() as c:
        M.save_extracted(c, "doc_a", {"publish_date": weak})
    assert M.get("doc_a", engine)["publish_date"].source == "model"
    with engine.begin() as c:
        M.save_extracted(c, "doc_a", {"publish_date": weak.but(value="2017-08-04", source="cover_text",
                                                               confidence=0.85)})
    assert (M.get("doc_a", engine)["publish_date"].value, M.get("doc_a", engine)["publish_date"].source) == (
        "2017-08-04", "cover_text")


def test_a_model_reply_of_the_wrong_shape_changes_nothing(engine, llm):
    server, model = llm
    server.script.append(("ok", "Sorry, I cannot read this cover."))
    with pytest.raises(ProviderError, match="it did not reply with a JSON object"):
        M.fill_with_model("doc_a", model, ["Some cover text here"], engine)
    server.script.append(_reply({"title": ["a", "list"], "states": "ZZ"}))
    res = M.fill_with_model("doc_a", model, ["Some cover text here"], engine)
    assert res.filled == {} and set(res.rejected) == {"title", "states"}
    assert all(v.value is None for v in M.get("doc_a", engine).values())


def test_anthropic_is_asked_with_a_forced_tool_call(engine, monkeypatch):
    from lib.models import registry

    with FakeLLMServer() as srv:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-000")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", srv.url)
        monkeypatch.setenv("NEPAQA_PROVIDER_RETRIES", "0")
        registry.reset()
        srv.script.append(("json", {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
                                    "content": [{"type": "tool_use", "id": "t1", "name": "record_document_metadata",
                                                 "input": {"lead_agency": "Forest Service", "title": None}}],
                                    "stop_reason": "tool_use", "usage": {"input_tokens": 5, "output_tokens": 5}}))
        model = next(p for p, ok, _ in registry.status_all() if ok and p.family == "anthropic")
        res = M.fill_with_model("doc_a", model, ["Forest Service\nFinal EIS"], engine)
        registry.reset()
    assert res.filled == {"lead_agency": "Forest Service"}
    body = srv.requests[-1]["body"]
    assert body["tool_choice"] == {"type": "tool", "name": "record_document_metadata"}
    assert body["tools"][0]["input_schema"]["additionalProperties"] is False


# ----- the command line ------------------------------------------------------------------------------------------
def _cli(*args: str, home) -> subprocess.CompletedProcess:
    env = {"NEPAQA_HOME": str(home), "PATH": "/usr/bin:/bin", "HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "lib", *args], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=300)


def test_metadata_eval_on_a_folder_with_a_bad_pdf_and_a_wrong_expectation(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    picks = [c for c in CASES if c.name in ("record_of_decision", "environmental_assessment", "annual_report_not_nepa")]
    with (folder / "expected.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["file", "title", "lead_agency", "document_type", "publish_date"])
        for c in picks:
            build(c, folder / f"{c.name}.pdf")
            w.writerow([f"{c.name}.pdf", c.expected["title"], c.expected["lead_agency"] or "",
                        c.expected["document_type"] or "", c.expected["year"]])
        w.writerow(["broken.pdf", "", "", "", ""])
        (folder / "broken.pdf").write_bytes(b"not a pdf at all")
    r = _cli("metadata-eval", str(folder), home=tmp_path / "home")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["documents"] == 4 and out["read"] == 3
    assert out["refused"][0]["file"] == "broken.pdf" and "not a PDF" in out["refused"][0]["reason"]
    table = {row["field"]: row for row in out["fields"]}
    lead = table["lead_agency"]["precision"]
    assert (lead["value"], lead["n"]) == (1.0, 2) and lead["ci95"][1] == 1.0 and 0.1 < lead["ci95"][0] < 0.5
    assert table["lead_agency"]["stated"] == 2 and table["document_type"]["right"] == 2
    assert list(table) == ["title", "lead_agency", "document_type", "year"]
    # an expectation the extractor does not meet is listed, not hidden
    rows = list(csv.reader((folder / "expected.csv").open()))
    rows[1][2] = "Forest Service"
    with (folder / "expected.csv").open("w", newline="") as f:
        csv.writer(f).writerows(rows)
    out = json.loads(_cli("metadata-eval", str(folder / "expected.csv"), home=tmp_path / "home").stdout)
    assert {"file": "record_of_decision.pdf", "field": "lead_agency", "shown": "Bureau of Land Management",
            "expected": "Forest Service", "kind": "wrong value"} in out["differences"]
    rows[3][2] = ""  # the annual report: any agency shown would be one the document does not name
    rows[1][2] = ""
    with (folder / "expected.csv").open("w", newline="") as f:
        csv.writer(f).writerows(rows)
    out = json.loads(_cli("metadata-eval", str(folder), home=tmp_path / "home").stdout)
    assert {"file": "record_of_decision.pdf", "field": "lead_agency", "shown": "Bureau of Land Management",
            "expected": None, "kind": "shown where the document does not say"} in out["differences"]
    assert out["legend"]["precision"] == "right / shown"


@pytest.mark.parametrize("header, message", [
    (["name", "title"], "no 'file' column"),
    (["file", "agency"], "column 'agency' that is not a metadata field"),
])
def test_metadata_eval_refuses_a_bad_csv_with_a_reason(tmp_path, header, message):
    (tmp_path / "e.csv").write_text(",".join(header) + "\nx.pdf,y\n")
    r = _cli("metadata-eval", str(tmp_path / "e.csv"), home=tmp_path / "home")
    assert r.returncode == 2 and r.stderr.startswith("error: ") and message in r.stderr
    r = _cli("metadata-eval", str(tmp_path / "nope"), home=tmp_path / "home")
    assert r.returncode == 2 and "No such file or folder" in r.stderr


# ----- cooperating agencies one per line, a department with its sub-agency (issue 42) ---------------------------
# (a dash as a hyphen: the base-14 fonts these covers are drawn with have no em dash)
_COOPS = ["U.S. Department of Agriculture — Forest Service", "U.S. Department of the Interior — Bureau of Land Management",
          "U.S. Army Corps of Engineers"]


@pytest.mark.parametrize("layout", ["label then one a line", "label alone, one a line", "a run of dashes between two",
                                    "commas, the department after"])
def test_each_cooperating_agency_is_one_entry_with_its_department(tmp_path, layout):
    lines = {
        "label then one a line": [("line", "Cooperating Agencies: U.S. Department of Agriculture - Forest Service", 11),
                                  ("line", "U.S. Department of the Interior - Bureau of Land Management", 11),
                                  ("line", "U.S. Army Corps of Engineers", 11)],
        "label alone, one a line": [("line", "Cooperating Agencies:", 11),
                                    ("line", "U.S. Department of Agriculture - Forest Service", 11),
                                    ("line", "U.S. Department of the Interior - Bureau of Land Management", 11),
                                    ("line", "U.S. Army Corps of Engineers", 11)],
        "a run of dashes between two": [("line", "Cooperating Agencies: U.S. Department of Agriculture - Forest Service "
                                                 "----------", 9),
                                        ("line", "U.S. Department of the Interior - Bureau of Land Management "
                                                 "---------- U.S. Army Corps of Engineers", 9)],
        "commas, the department after": [("line", "Cooperating Agencies: Forest Service, U.S. Department of Agriculture;", 11),
                                         ("line", "Bureau of Land Management, U.S. Department of the Interior;", 11),
                                         ("line", "U.S. Army Corps of Engineers", 11)],
    }[layout]
    lead = ("line", "Federal Highway Administration", 12)
    got = _cover(tmp_path, "coops", [[lead, *_TITLE, ("gap", 20), *lines, ("line", "November 2018", 12)]])
    assert got["cooperating_agencies"] == _COOPS
    assert got["lead_agency"] == "Federal Highway Administration"


@pytest.mark.parametrize("lines, expected", [
    # a name wrapped onto the next line is one name, not "Bureau of" and a lost agency
    ([("line", "Cooperating Agencies: U.S. Environmental Protection Agency; Bureau of", 11),
      ("line", "Land Management; Forest Service", 11)],
     ["Environmental Protection Agency", "Bureau of Land Management", "Forest Service"]),
    # each line names its own cooperator: the department and its bureau stay two entries
    ([("line", "U.S. Department of the Interior (Cooperating Agency)", 11),
      ("line", "Bureau of Land Management (Cooperating Agency)", 11)],
     ["Department of the Interior", "Bureau of Land Management"]),
    # a department and an agency that is not directly its own, in two entries: two names
    ([("line", "Cooperating Agencies: Department of Defense; U.S. Army Corps of Engineers", 11)],
     ["Department of Defense", "U.S. Army Corps of Engineers"]),
])
def test_cooperating_entries_are_not_glued_or_merged_across_entries(tmp_path, lines, expected):
    got = _cover(tmp_path, "coops2", [[("line", "Nuclear Regulatory Commission", 12), *_TITLE, ("gap", 20), *lines,
                                       ("line", "November 2018", 12)]])
    assert got["cooperating_agencies"] == expected


@pytest.mark.parametrize("lines, expected", [
    ([("line", "Prepared by:", 10), ("line", "U.S. Army Environmental Command", 10),
      ("line", "2450 Connell Road, Fort Sam Houston, TX 78234", 10)], "U.S. Army Environmental Command"),
    ([("line", "Prepared by: Bureau of Land Management,", 10), ("line", "Elko District Office", 10)],
     "Bureau of Land Management, Elko District Office"),
    ([("line", "Prepared for NASA by:", 10), ("line", "Coastal Range Environmental, LLC", 10)], None),
    ([("line", "Prepared by: see the list of preparers in Chapter 7", 10)], None),
    ([("line", "Prepared by: Coastal Range Environmental, LLC, 1200 Banana River Drive, Cocoa Beach", 9)],
     "Coastal Range Environmental, LLC"),  # the address on the label's line is cut off
    ([("line", "Prepared by: Jane Doe, Wildlife Biologist", 10)], None),  # a person
    ([("line", "The analyses summarized in this document were", 10),
      ("line", "prepared by the Bureau of Reclamation to evaluate the effects of the dam raise", 10)], None),
])
def test_prepared_by_is_read_from_its_label_and_stops_at_an_address(tmp_path, lines, expected):
    got = _cover(tmp_path, "prepared", [[_AGENCY, *_TITLE, ("gap", 20), *lines, ("line", "November 2018", 12)]])
    assert got.get("prepared_by") == expected

"""Document metadata: rules on the sample and on covers made here, storage and edits, a connected model filling
gaps, collection filters, the standard's JSON export, and the Documents page."""
from __future__ import annotations

import dataclasses
import json
import time
from types import SimpleNamespace

import pymupdf
import pytest
from sqlalchemy import insert

from lib.core.errors import UserError
from lib.documents import metadata as M
from lib.documents.metadata.extraction import VOCABULARY_PAGES
from lib.documents.pdf import ExtractedPdf, Page, read_pdf_file
from lib.models.base import ProviderError
from lib.storage import tables
from lib.storage.engine import get_engine
from tests.conftest import ROOT, SAMPLE_PDF, metadata_panel
from tests.fake_llm_server import FakeLLMServer

SAMPLE_TITLE = "Continental United States (CONUS) Interceptor Site Final Environmental Impact Statement"


def values(fields: dict) -> dict:
    return {k: v.value for k, v in fields.items()}


def sources(fields: dict) -> dict:
    return {k: v.source for k, v in fields.items()}


def vs(item: M.FieldValue | dict) -> tuple:
    """A field's value and source (its confidence and evidence are checked where they matter), from a stored field
    or from the command line's JSON."""
    return (item["value"], item["source"]) if isinstance(item, dict) else (item.value, item.source)


# ----- extraction: the sample ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sample_ex() -> ExtractedPdf:
    return read_pdf_file(SAMPLE_PDF, 10**9)


def test_sample_metadata_from_its_info_dictionary_and_cover(sample_ex):
    started = time.perf_counter()
    m = M.extract(sample_ex)
    assert time.perf_counter() - started < 1.0
    assert values(m) == {
        "title": SAMPLE_TITLE,
        "project_title": "Continental United States (CONUS) Interceptor Site",
        "lead_agency": "Missile Defense Agency",
        "process_type": "EIS",
        "document_type": "Final EIS",
        "publish_date": "2017-02",  # "February 2017" on the cover: month precision, no invented day
        "states": ["ME", "MI", "NY", "OH"],  # the PDF keywords; the cover's "Fort Belvoir, VA 22060" is an address
    }
    assert sources(m) == {"title": "pdf_metadata", "project_title": "pdf_metadata", "lead_agency": "cover_text",
                          "process_type": "pdf_metadata", "document_type": "pdf_metadata",
                          "publish_date": "cover_text", "states": "pdf_metadata"}
    # every value says where it was read and how sure the rules are; agreeing evidence counts
    assert m["title"].evidence["property"] == "Title" and m["title"].evidence["agreeing"] == 2  # and the cover
    lead = m["lead_agency"]
    assert lead.evidence["page"] == 1 and lead.evidence["agreeing"] >= 3  # cover lines, address block, Author
    assert all(M.THRESHOLD <= v.confidence <= 1 for v in m.values())
    assert m["publish_date"].evidence["rule"] == "a date on the title page"
    assert list(m) == [k for k in M.FIELDS if k in m]


def test_sample_without_its_info_dictionary_reads_the_cover(sample_ex):
    m = M.extract(dataclasses.replace(sample_ex, pdf_metadata={}))
    assert values(m) == {
        "title": "Continental United States (CONUS) Interceptor Site Environmental Impact Statement Final",
        "project_title": "Continental United States (CONUS) Interceptor Site",
        "lead_agency": "Missile Defense Agency",  # the cover names DoD and MDA: the sub-agency wins
        "process_type": "EIS",
        "document_type": "Final EIS",
        "publish_date": "2017-02",
    }
    assert set(sources(m).values()) == {"cover_text"}


def test_only_the_first_pages_are_read():
    class Untouchable:
        number = 99

        @property
        def text(self):
            raise AssertionError("extract read past the first pages")

    cover = Page(1, "Draft Environmental Impact Statement\nfor the Lake Erie Wind Project\nMarch 2, 2020")
    pages = [cover] + [Page(i, "Body text. " * 300) for i in range(2, VOCABULARY_PAGES + 1)] + [
        Untouchable() for _ in range(900)]
    ex = ExtractedPdf("big", "0" * 64, 1, pages)
    started = time.perf_counter()
    m = M.extract(ex)
    assert time.perf_counter() - started < 1.0
    assert values(m)["document_type"] == "Draft EIS" and values(m)["publish_date"] == "2020-03-02"
    assert values(m)["project_title"] == "Lake Erie Wind Project"


# ----- extraction: covers made here ------------------------------------------------------------------------------
FHWA_COVER = """U.S. Department of Transportation
Federal Highway Administration
Interstate 11 Corridor Tier 1
Final Environmental Impact Statement
and Preliminary Section 4(f) Evaluation
Maricopa, Pinal, Pima, Yavapai and Santa Cruz Counties, Arizona
FHWA-AZ-EIS-19-01-F
Lead Agency: Federal Highway Administration
Cooperating Agencies: U.S. Army Corps of Engineers, Bureau of Land Management,
U.S. Fish and Wildlife Service, Arizona Department of Transportation
July 12, 2019
"""
DOE_COVER = """DOE/EIS-0250F-S2
Supplemental Draft Environmental Impact Statement
for a Geologic Repository for the Disposal of Spent Nuclear Fuel
and High-Level Radioactive Waste at Yucca Mountain, Nye County, Nevada
U.S. Department of Energy
Office of Civilian Radioactive Waste Management
October 2007
"""
BLM_ROD_COVER = """RECORD OF DECISION
for the Chokecherry and Sierra Madre Wind Energy Project
Carbon County, Wyoming
Bureau of Land Management
Rawlins Field Office
1300 North Third Street, Rawlins, WY 82301
EIS No. 20120345
October 9, 2012
"""
USFS_EA_COVER = """United States Department of Agriculture
Forest Service
Environmental Assessment
Stonewall Vegetation Project
Lincoln Ranger District, Lewis and Clark County, MT
June 2016
"""
NOI_COVER = """Notice of Intent To Prepare an Environmental Impact Statement
for the Honolulu Harbor Modernization Project
Lead Agency: U.S. Army Corps of Engineers, Honolulu District
Location: Honolulu Harbor, City and County of Honolulu, Hawaii
"""
BODY = "The proposed action would affect wetlands near the access road. " * 30


def cover_pdf(pdf_factory, name: str, cover: str):
    return read_pdf_file(pdf_factory(name, [cover, BODY]), 10**9)


def test_fhwa_final_eis_with_lead_and_cooperating_agencies_and_number(pdf_factory):
    m = M.extract(cover_pdf(pdf_factory, "i11.pdf", FHWA_COVER))
    assert values(m) == {
        "title": "Interstate 11 Corridor Tier 1 Final Environmental Impact Statement and Preliminary Section 4(f) "
                 "Evaluation",
        "project_title": "Interstate 11 Corridor",  # "Tier 1" is the review's tier, not the project's name
        "lead_agency": "Federal Highway Administration",
        "cooperating_agencies": ["U.S. Army Corps of Engineers", "Bureau of Land Management",
                                 "U.S. Fish and Wildlife Service", "Arizona Department of Transportation"],
        "process_type": "EIS",
        "document_type": "Final EIS",
        "publish_date": "2019-07-12",
        "states": ["AZ"],
        "eis_number": "FHWA-AZ-EIS-19-01-F",
    }
    assert set(sources(m).values()) == {"cover_text"}


def test_doe_supplemental_draft_eis(pdf_factory):
    m = values(M.extract(cover_pdf(pdf_factory, "yucca.pdf", DOE_COVER)))
    assert m["document_type"] == "Supplemental Draft EIS" and m["process_type"] == "EIS"
    assert m["lead_agency"] == "Department of Energy"
    assert m["eis_number"] == "DOE/EIS-0250F-S2"
    assert m["states"] == ["NV"] and m["publish_date"] == "2007-10"
    assert m["project_title"].startswith("Geologic Repository for the Disposal of Spent Nuclear Fuel")
    assert "cooperating_agencies" not in m and "location" not in m


def test_blm_record_of_decision_with_ceq_number(pdf_factory):
    m = values(M.extract(cover_pdf(pdf_factory, "rod.pdf", BLM_ROD_COVER)))
    assert (m["document_type"], m["process_type"]) == ("ROD", "EIS")
    assert m["lead_agency"] == "Bureau of Land Management"
    assert m["eis_number"] == "20120345"
    assert m["publish_date"] == "2012-10-09"
    assert m["states"] == ["WY"]
    assert m["project_title"] == "Chokecherry and Sierra Madre Wind Energy Project"


def test_forest_service_environmental_assessment(pdf_factory):
    m = values(M.extract(cover_pdf(pdf_factory, "ea.pdf", USFS_EA_COVER)))
    assert (m["document_type"], m["process_type"]) == ("EA", "EA")
    assert m["lead_agency"] == "Forest Service"  # USDA and the Forest Service: the sub-agency
    assert m["project_title"] == "Stonewall Vegetation Project"
    assert m["states"] == ["MT"] and m["publish_date"] == "2016-06"


def test_notice_of_intent_with_location(pdf_factory):
    m = values(M.extract(cover_pdf(pdf_factory, "noi.pdf", NOI_COVER)))
    assert (m["document_type"], m["process_type"]) == ("NOI", "EIS")
    assert m["lead_agency"] == "U.S. Army Corps of Engineers"
    assert m["location"] == "Honolulu Harbor, City and County of Honolulu, Hawaii"
    assert m["states"] == ["HI"]
    assert m["project_title"] == "Honolulu Harbor Modernization Project"
    assert "publish_date" not in m and "eis_number" not in m


def test_pdf_info_dictionary_author_keywords_and_creation_date(tmp_path):
    doc = pymupdf.open()
    doc.new_page().insert_textbox(pymupdf.Rect(50, 50, 550, 800),
                                  "Galveston Bay Park Plan\nProgrammatic Final Environmental Impact Statement",
                                  fontsize=10)
    doc.set_metadata({"title": "Microsoft Word - GBPP_PFEIS_final.docx",  # a file name, not a title: ignored
                      "author": "U.S. Army Corps of Engineers, Galveston District",
                      "keywords": "Texas; coastal storm risk; LA", "creationDate": "D:20231215090000-06'00'"})
    doc.save(tmp_path / "gbpp.pdf")
    m = M.extract(read_pdf_file(tmp_path / "gbpp.pdf", 10**9))
    assert vs(m["title"]) == ("Galveston Bay Park Plan Programmatic Final Environmental Impact Statement",
                              "cover_text")
    assert vs(m["document_type"]) == ("Programmatic Final EIS", "cover_text")
    assert vs(m["lead_agency"]) == ("U.S. Army Corps of Engineers", "pdf_metadata")
    assert vs(m["states"]) == (["LA", "TX"], "pdf_metadata")
    assert vs(m["publish_date"]) == ("2023-12", "pdf_metadata")  # no date on the cover: the creation month  # no date on the cover


def test_a_pdf_with_no_metadata_gives_nothing(pdf_factory, bad_files):
    assert M.extract(read_pdf_file(pdf_factory("plain.pdf", [BODY, BODY]), 10**9)) == {}
    assert M.extract(read_pdf_file(bad_files["good"], 10**9)) == {}
    assert M.extract(ExtractedPdf("none", "0" * 64, 0, [])) == {}
    assert M.extract(SimpleNamespace(pages=None, pdf_metadata=None)) == {}
    assert M.extract(SimpleNamespace(pages=[SimpleNamespace(text=12345)], pdf_metadata={})) == {}  # never raises


@pytest.mark.parametrize("text, expected", [
    ("Final Environmental Impact Statement", ("Final EIS", "EIS")),
    ("Draft Supplemental Environmental Impact Statement", ("Supplemental Draft EIS", "EIS")),
    ("SDEIS for the Project", ("Supplemental Draft EIS", "EIS")),
    ("Programmatic Draft EIS", ("Programmatic Draft EIS", "EIS")),
    ("Final EIS and Record of Decision", ("Final EIS", "EIS")),
    ("Record of Decision for the Final EIS", ("ROD", "EIS")),
    ("Finding of No Significant Impact", ("FONSI", "EA")),
    ("Environmental Impact Statement", (None, "EIS")),
    ("Annual report", (None, None)),
])
def test_document_type_words(text, expected):
    assert M.classify(text) == expected


# ----- storage ---------------------------------------------------------------------------------------------------
@pytest.fixture
def engine(tmp_path):
    eng = get_engine(f"sqlite:///{tmp_path / 'meta.db'}")
    for doc_id, name in (("doc_a", "a_file"), ("doc_b", "b_file"), ("doc_c", "c_file")):
        with eng.begin() as c:
            c.execute(insert(tables.documents).values(
                doc_id=doc_id, name=name, sha256=doc_id.ljust(64, "0"), status="ready:1", n_bytes=1, n_pages=1,
                n_chars=1, chunk_size=200, chunk_overlap=40, embed_model="test"))
    return eng


def test_save_get_edit_and_keep_a_persons_values(engine, sample_ex):
    assert {k: vs(v) for k, v in M.get("doc_a", engine).items()} == {k: (None, None) for k in M.FIELDS}
    with engine.begin() as c:
        M.save_extracted(c, "doc_a", M.extract(sample_ex))
    got = M.get("doc_a", engine)
    assert list(got) == list(M.FIELDS)
    assert vs(got["lead_agency"]) == ("Missile Defense Agency", "cover_text")
    assert got["lead_agency"].confidence >= M.SURE and got["lead_agency"].evidence["page"] == 1
    assert vs(got["states"]) == (["ME", "MI", "NY", "OH"], "pdf_metadata")
    assert vs(got["location"]) == (None, None)

    after = M.set_values("doc_a", {"lead_agency": "Department of Defense", "states": "mi, OH, New York",
                                   "cooperating_agencies": "U.S. Army Corps of Engineers; National Guard Bureau",
                                   "publish_date": "2017-02-03", "document_type": "feis"}, engine)
    assert vs(after["lead_agency"]) == ("Department of Defense", "person")
    assert vs(after["states"]) == (["MI", "NY", "OH"], "person")
    assert after["cooperating_agencies"].value == ["U.S. Army Corps of Engineers", "National Guard Bureau"]
    assert vs(after["document_type"]) == ("Final EIS", "person")
    assert after["title"].source == "pdf_metadata"  # untouched fields keep their source

    # a later extraction (a re-ingest) never overwrites what a person set, but refreshes the rest
    with engine.begin() as c:
        M.save_extracted(c, "doc_a", {"lead_agency": M.FieldValue("Forest Service", "cover_text"),
                                      "title": M.FieldValue("A New Title Here", "cover_text")})
    got = M.get("doc_a", engine)
    assert vs(got["lead_agency"]) == ("Department of Defense", "person")
    assert vs(got["publish_date"]) == ("2017-02-03", "person")
    assert vs(got["title"]) == ("A New Title Here", "cover_text")
    assert vs(got["project_title"]) == (None, None)  # no longer found: no longer claimed

    # clearing is a person's value too: it stays empty and no model fills it
    M.set_values("doc_a", {"location": ""}, engine)
    assert vs(M.get("doc_a", engine)["location"]) == (None, "person")
    assert "location" not in M.missing(M.get("doc_a", engine))

    with engine.begin() as c:
        M.delete(c, "doc_a")
    assert {k: vs(v) for k, v in M.get("doc_a", engine).items()} == {k: (None, None) for k in M.FIELDS}


@pytest.mark.parametrize("values_, message", [
    ({"agency": "BLM"}, "Unknown metadata field 'agency'"),
    ({"year": "2017"}, "derived from publish_date"),
    ({"document_type": "Final Report"}, "Unknown document_type 'Final Report'"),
    ({"process_type": "EIR"}, "Unknown process_type 'EIR'"),
    ({"states": "MI, XX"}, "'XX' is not a U.S. state"),
    ({"publish_date": "Feb 2017"}, "publish_date must be an ISO date"),
    ({"publish_date": "2017-13-01"}, "publish_date must be an ISO date"),
    ({}, "Nothing to set"),
])
def test_bad_edits_are_refused_with_a_reason_and_nothing_is_written(engine, values_, message):
    M.set_values("doc_b", {"lead_agency": "Bureau of Land Management"}, engine)
    with pytest.raises(UserError, match=message):
        M.set_values("doc_b", {"title": "Written before the bad field?", **values_} if values_ else {}, engine)
    assert M.get("doc_b", engine)["title"].value is None  # all or nothing
    with pytest.raises(UserError, match="No indexed document with id 'nope'"):
        M.set_values("nope", {"title": "x y z"}, engine)
    with pytest.raises(UserError, match="Unknown metadata source"):
        M.set_values("doc_b", {"title": "x y z"}, engine, source="guess")


def test_cli_metadata_shape_is_fixed(engine):
    M.set_values("doc_c", {"title": "Sample Title Here", "states": "AK"}, engine)
    out = M.cli_metadata("doc_c", engine)
    assert list(out) == list(M.FIELDS)
    assert vs(out["title"]) == ("Sample Title Here", "person")
    assert vs(out["eis_number"]) == (None, None)
    assert json.dumps(out) == json.dumps(M.cli_metadata("doc_c", engine))


# ----- the collection: filters and the standard's JSON -----------------------------------------------------------
@pytest.fixture
def collection(engine):
    M.set_values("doc_a", {"title": "Alpha Pipeline Final Environmental Impact Statement",
                           "project_title": "Alpha Pipeline", "lead_agency": "Bureau of Land Management",
                           "states": "AK", "document_type": "Final EIS", "process_type": "EIS",
                           "publish_date": "2012-05", "cooperating_agencies": "U.S. Army Corps of Engineers",
                           "eis_number": "20120150"}, engine)
    M.set_values("doc_b", {"title": "Alpha Pipeline Draft Environmental Impact Statement",
                           "project_title": "alpha  pipeline", "lead_agency": "BLM", "states": "AK",
                           "document_type": "Draft EIS", "process_type": "EIS", "publish_date": "2010-11-02",
                           "cooperating_agencies": "Environmental Protection Agency"}, engine)
    M.set_values("doc_c", {"title": "Bravo Road Environmental Assessment", "lead_agency": "Federal Highway Administration",
                           "states": "OR, WA", "document_type": "EA", "publish_date": "2019"}, engine)
    M.set_values("doc_a", {"tags": "Caribou, Arctic "}, engine)
    M.set_values("doc_c", {"tags": ["wetlands"]}, engine)
    docs = [SimpleNamespace(doc_id=d, name=f"{d}_file") for d in ("doc_a", "doc_b", "doc_c")]
    return docs


@pytest.mark.parametrize("where, expected", [
    ({}, ["doc_a", "doc_b", "doc_c"]),
    ({"lead_agency": "land management"}, ["doc_a", "doc_b"]),  # substring, any case; "BLM" is the same agency
    ({"lead_agency": "FHWA"}, ["doc_c"]),
    ({"states": "WA,NV"}, ["doc_c"]),
    ({"states": ["AK"]}, ["doc_a", "doc_b"]),
    ({"document_type": "final eis"}, ["doc_a"]),
    ({"process_type": "EA"}, []),  # doc_c's process type was never set: unknown never matches
    ({"year": "2010-2012"}, ["doc_a", "doc_b"]),
    ({"year": "2019"}, ["doc_c"]),
    ({"year": "2011-"}, ["doc_a", "doc_c"]),
    ({"text": "bravo"}, ["doc_c"]),
    ({"title": "ALPHA", "states": "AK", "year": "2012"}, ["doc_a"]),
    ({"text": "doc_b_file"}, ["doc_b"]),
    ({"tag": "wetlands"}, ["doc_c"]),
    ({"tag": "CARIBOU"}, ["doc_a"]),
    ({"tag": "caribou, wetlands"}, ["doc_a", "doc_c"]),  # any of several
    ({"tag": "caribou", "states": "WA"}, []),
    ({"tag": "moose"}, []),
])
def test_collection_filter(engine, collection, where, expected):
    assert M.collection_filter(collection, where, engine) == expected


def test_tags_are_normalised_kept_apart_from_the_fields_and_go_with_the_document(engine, collection):
    assert M.tags_many(["doc_a", "doc_b", "doc_c"], engine) == {"doc_a": ["arctic", "caribou"], "doc_b": [],
                                                                "doc_c": ["wetlands"]}
    assert "tags" not in M.get("doc_a", engine) and list(M.cli_metadata("doc_a", engine)) == list(M.FIELDS)
    M.set_values("doc_a", {"tags": ""}, engine)  # an empty value clears them
    assert M.tags_many(["doc_a"], engine) == {"doc_a": []}
    with pytest.raises(UserError, match="tags are at most 60"):
        M.set_values("doc_b", {"tags": "x" * 61}, engine)
    with pytest.raises(UserError, match="at most 50"):
        M.set_values("doc_b", {"tags": [f"t{i}" for i in range(51)]}, engine)
    assert M.tags_many(["doc_b"], engine) == {"doc_b": []}  # nothing half-written
    ceq = M.export_ceq(collection, engine)
    assert ceq["documents"][2]["other"]["tags"] == ["wetlands"]
    with engine.begin() as c:
        M.delete(c, "doc_c")
    assert M.tags_many(["doc_c"], engine) == {"doc_c": []}


def test_collection_filter_refuses_unknown_keys_and_bad_values(engine, collection):
    with pytest.raises(UserError, match="Unknown filter 'agency'"):
        M.collection_filter(collection, {"agency": "BLM"}, engine)
    with pytest.raises(UserError, match="year takes a year or a range"):
        M.collection_filter(collection, {"year": "recent"}, engine)
    assert M.parse_where('lead_agency=Bureau of Land Management,states=AK,WA,document_type="Final EIS",year=2010-2020') \
        == {"lead_agency": "Bureau of Land Management", "states": "AK,WA", "document_type": "Final EIS",
            "year": "2010-2020"}


def test_export_maps_our_richer_types_to_the_standards_enum(engine, collection):
    M.set_values("doc_b", {"document_type": "Supplemental Draft EIS", "publish_date": "2010-11-02"}, engine)
    b = next(d for d in M.export_ceq(collection, engine)["documents"] if d["document_id"] == "doc_b")
    assert (b["document_type"], b["document_revision"], b["publish_date"]) == ("Draft EIS", "Supplemental", "2010-11-02")
    assert b["other"]["document_type"] == "Supplemental Draft EIS"


def test_export_in_the_standards_shape(engine, collection):
    out = M.export_ceq(collection, engine)
    assert list(out) == ["projects", "processes", "documents"]
    projects, processes, documents = out["projects"], out["processes"], out["documents"]
    assert [p.get("project_title") for p in projects] == ["Alpha Pipeline", None]  # one project per distinct title
    alpha, bravo = projects
    assert alpha["lead_agency"] == "Bureau of Land Management" and alpha["other"]["states"] == ["AK"]
    assert [(p["project_id"], p["process_type"]) for p in processes] == [
        (alpha["project_id"], "EIS"), (bravo["project_id"], "EA")]  # doc_c's EA process, from its document type
    assert processes[0]["cooperating_agencies"] == ["U.S. Army Corps of Engineers", "Environmental Protection Agency"]
    assert processes[0]["process_id"].startswith(alpha["project_id"])
    by_id = {d["document_id"]: d for d in documents}
    assert by_id["doc_a"]["process_id"] == by_id["doc_b"]["process_id"] == processes[0]["process_id"]
    assert by_id["doc_c"]["process_id"] == processes[1]["process_id"]
    a = by_id["doc_a"]
    assert (a["title"], a["document_type"], a["states"], a["eis_number"]) == (
        "Alpha Pipeline Final Environmental Impact Statement", "Final EIS", ["AK"], "20120150")
    # the standard's types: no nulls, its document_type enum, full dates only; the rest kept under "other"
    assert "publish_date" not in a and a["other"]["publish_date"] == "2012-05"
    assert a["other"]["missing_required"] == ["prepared_by"]
    c = by_id["doc_c"]
    assert "document_type" not in c and c["other"]["document_type"] == "EA"
    assert bravo["other"]["missing_required"] == ["project_title", "project_description", "project_sector",
                                                  "project_sponsor", "location"]
    for rows in out.values():
        for row in rows:
            assert None not in row.values()
    assert a["other"]["metadata_sources"]["lead_agency"] == "person"
    assert json.dumps(out, sort_keys=False) == json.dumps(M.export_ceq(collection, engine), sort_keys=False)


# ----- a connected model fills gaps ------------------------------------------------------------------------------
KEY = "sk-test-SUPERSECRETKEY1234567890"


@pytest.fixture
def llm(monkeypatch):
    from lib.models import registry

    with FakeLLMServer() as srv:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", srv.url + "/v1")
        monkeypatch.setenv("OPENAI_MODEL", "gpt-test")
        monkeypatch.setenv("NEPAQA_PROVIDER_TIMEOUT", "2")
        monkeypatch.setenv("NEPAQA_PROVIDER_RETRIES", "1")
        registry.reset()
        yield srv, registry.get("openai")
    registry.reset()


def test_a_connected_model_fills_only_the_gaps(engine, llm):
    server, model = llm
    M.set_values("doc_a", {"title": "Alpha Pipeline Final EIS", "lead_agency": "Bureau of Land Management",
                           "location": ""}, engine)  # location cleared by a person: not a gap
    server.script.append(("ok", "```json\n" + json.dumps({
        "lead_agency": "Forest Service",  # not asked: ignored
        "project_title": "Alpha Pipeline", "states": ["AK", "ZZ"], "document_type": "Final EIS",
        "process_type": "EIS", "publish_date": "2012-05-04", "eis_number": "20120150",
        "cooperating_agencies": ["U.S. Army Corps of Engineers"], "title": None}) + "\n```"))
    res = M.fill_with_model("doc_a", model, ["Alpha Pipeline\nFinal Environmental Impact Statement\nMay 4, 2012"], engine)
    asked = ["project_title", "cooperating_agencies", "prepared_by", "process_type", "document_type", "publish_date",
             "states", "eis_number"]  # prepared_by asked, not answered: left empty; volume_title never asked
    assert res.asked == asked
    assert res.filled == {"project_title": "Alpha Pipeline", "cooperating_agencies": ["U.S. Army Corps of Engineers"],
                             "process_type": "EIS", "document_type": "Final EIS", "publish_date": "2012-05-04",
                             "eis_number": "20120150"}
    assert list(res.rejected) == ["states"]  # "ZZ" is not a state: the whole answer for that field is refused
    prompt = server.requests[-1]["body"]["messages"][-1]["content"]
    assert '"eis_number"' in prompt and '"lead_agency"' not in prompt and '"location"' not in prompt
    assert "May 4, 2012" in prompt
    got = M.get("doc_a", engine)
    assert vs(got["lead_agency"]) == ("Bureau of Land Management", "person")
    assert vs(got["eis_number"]) == ("20120150", "model")
    assert vs(got["location"]) == (None, "person")
    assert vs(got["states"]) == (None, None)

    # nothing missing but the refused field: one more call asks only for it; a non-JSON reply changes nothing
    server.script.append(("ok", "I could not find it."))
    with pytest.raises(ProviderError, match="it did not reply with a JSON object"):
        M.fill_with_model("doc_a", model, ["text"], engine)
    assert '"states"' in server.requests[-1]["body"]["messages"][-1]["content"]
    assert M.get("doc_a", engine)["states"].value is None


def test_the_bundled_models_are_refused(engine):
    from lib.models.base import Provider

    class Tiny(Provider):
        family, model_name, label, weak = "local", "tiny-test", "Tiny test model", True

        def _generate(self, req):
            raise AssertionError("a weak model must not be called")

    with pytest.raises(UserError, match="cannot fill metadata reliably"):
        M.fill_with_model("doc_a", Tiny(), ["text"], engine)
    from lib.models.extractive import ExtractiveProvider

    with pytest.raises(UserError, match="cannot fill metadata reliably"):
        M.fill_with_model("doc_a", ExtractiveProvider(), ["text"], engine)


# ----- ingest and the Documents page -----------------------------------------------------------------------------
def test_ingest_stores_the_sample_metadata(services, sample_doc):
    got = M.get(sample_doc.doc_id, services.docs.engine)
    assert vs(got["lead_agency"]) == ("Missile Defense Agency", "cover_text")
    assert got["lead_agency"].confidence >= M.SURE and got["lead_agency"].evidence["page"] == 1
    assert vs(got["document_type"]) == ("Final EIS", "pdf_metadata")


def test_documents_page_metadata_table_filters_edit_and_fill_button(services, sample_doc, pdf_factory):
    from streamlit.testing.v1 import AppTest

    engine = services.docs.engine
    i11_path = pdf_factory("i11_cover.pdf", [FHWA_COVER, BODY])
    i11 = services.docs.ingest_file(str(i11_path))
    with engine.begin() as c:  # the rules' values (whatever earlier tests edited), without relying on the ingest hook
        for doc_id, path in ((sample_doc.doc_id, SAMPLE_PDF), (i11.doc_id, i11_path)):
            M.delete(c, doc_id)
            M.save_extracted(c, doc_id, M.extract(read_pdf_file(path, 10**9)))
    sid = sample_doc.doc_id

    at = AppTest.from_file(str(ROOT / "pages" / "documents.py"), default_timeout=180).run()
    assert not at.exception
    table = at.dataframe[0].value.set_index("id")
    assert table.loc[sid, "title"] == SAMPLE_TITLE  # titles, not file names
    assert table.loc[sid, "file"] == SAMPLE_PDF.stem
    assert (table.loc[sid, "lead agency"], table.loc[sid, "type"], table.loc[sid, "states"]) == (
        "Missile Defense Agency", "Final EIS", "ME, MI, NY, OH")
    assert table.loc[i11.doc_id, "EIS number"] == "FHWA-AZ-EIS-19-01-F"

    # the metadata panel: each value with its source
    at.selectbox(key="docs_pick").select(sid).run()
    panel = metadata_panel(at)  # plain labels in "field"
    assert panel.loc["lead_agency", "source"] == "cover text"
    assert panel.loc["lead_agency", "where"].startswith("p. 1, line ")
    assert panel.loc["title", "where"] == "PDF property Title" and float(panel.loc["title", "confidence"]) >= 0.9
    assert panel.loc["publish_date", "value"] == "2017-02" and panel.loc["publish_date", "source"] == "cover text"
    assert (panel.loc["eis_number", "source"], panel.loc["eis_number", "value"]) == ("—", M.NOT_FOUND)
    fill = at.button(key="meta_fill")
    assert fill.disabled  # only the bundled models in the tests
    assert any("Only the bundled models are configured" in c.value for c in at.caption)

    # filters (sidebar) and sort
    at.multiselect(key="docs_f_states").set_value(["AZ"]).run()
    assert list(at.dataframe[0].value["id"]) == [i11.doc_id]
    at.multiselect(key="docs_f_states").set_value([]).run()
    at.text_input(key="docs_f_text").input("interceptor").run()
    assert list(at.dataframe[0].value["id"]) == [sid]
    at.text_input(key="docs_f_text").input("").run()
    at.multiselect(key="docs_f_type").set_value(["Final EIS"]).run()
    at.slider(key="docs_f_year").set_value((2019, 2019)).run()
    assert list(at.dataframe[0].value["id"]) == [i11.doc_id]
    at.slider(key="docs_f_year").set_value((2017, 2019)).run()
    at.selectbox(key="docs_sort").select("Publish date").run()
    at.toggle(key="docs_desc").set_value(True).run()
    ids = list(at.dataframe[0].value["id"])
    assert ids.index(i11.doc_id) < ids.index(sid)
    at.multiselect(key="docs_f_agency").set_value(["Missile Defense Agency"]).run()
    assert list(at.dataframe[0].value["id"]) == [sid]

    # edit: a bad date is refused with the reason; a good edit is saved as the person's
    at.selectbox(key="docs_pick").select(sid).run()
    at.toggle(key="meta_edit").set_value(True).run()
    at.text_input(key=f"meta_publish_date_{sid}").input("Feb 2017")
    next(b for b in at.button if b.label == "Save metadata").click().run()
    assert any("must be an ISO date" in e.value for e in at.error)
    assert vs(M.get(sid, engine)["publish_date"]) == ("2017-02", "cover_text")
    at.text_input(key=f"meta_publish_date_{sid}").input("2017-02-01")
    at.text_input(key=f"meta_location_{sid}").input("Michigan, Ohio, New York")
    next(b for b in at.button if b.label == "Save metadata").click().run()
    assert not at.exception
    got = M.get(sid, engine)
    assert vs(got["publish_date"]) == ("2017-02-01", "person")
    assert vs(got["location"]) == ("Michigan, Ohio, New York", "person")
    assert got["lead_agency"].source == "cover_text"  # unchanged fields keep their source
    assert any("Saved Published, Location (source: person)" in s.value for s in at.success)  # plain labels

    # untrusted titles are shown as text: Markdown in a title is escaped where Markdown renders
    M.set_values(i11.doc_id, {"title": "I-11 ![x](http://attacker.test/p.png) **bold**"}, engine)
    at = AppTest.from_file(str(ROOT / "pages" / "documents.py"), default_timeout=180).run()
    at.selectbox(key="docs_pick").select(i11.doc_id).run()
    chunks_line = next(m.value for m in at.markdown if m.value.startswith("**Chunks of"))
    assert "\\!\\[x\\]\\(http\\://attacker.test/p.png\\)" in chunks_line and "\\*\\*bold\\*\\*" in chunks_line
    services.docs.delete(i11.doc_id)
    assert vs(M.get(i11.doc_id, engine)["title"]) == (None, None)


def test_documents_page_fills_gaps_with_a_connected_model(services, pdf_factory, llm):
    from streamlit.testing.v1 import AppTest

    server, _model = llm
    engine = services.docs.engine
    noi = services.docs.ingest_file(str(pdf_factory("noi_cover.pdf", [NOI_COVER, BODY])))
    with engine.begin() as c:
        M.delete(c, noi.doc_id)
        M.save_extracted(c, noi.doc_id, M.extract(read_pdf_file(pdf_factory("noi_again.pdf", [NOI_COVER, BODY]), 10**9)))
    at = AppTest.from_file(str(ROOT / "pages" / "documents.py"), default_timeout=180).run()
    at.selectbox(key="docs_pick").select(noi.doc_id).run()
    assert at.selectbox(key="meta_fill_model").value == "openai/gpt-test"
    fill = at.button(key="meta_fill")
    assert not fill.disabled
    server.script.append(("ok", json.dumps({"publish_date": "2021-03-15", "eis_number": "20210042",
                                            "cooperating_agencies": None, "title": None,
                                            "lead_agency": "ignored: the rules are sure of it"})))
    fill.click().run()
    assert not at.exception
    asked = server.requests[-1]["body"]["response_format"]["json_schema"]["schema"]["required"]
    assert "lead_agency" not in asked and "title" in asked  # a label (sure) is not asked; a text-rule title is
    got = M.get(noi.doc_id, engine)
    assert vs(got["publish_date"]) == ("2021-03-15", "model")
    assert vs(got["eis_number"]) == ("20210042", "model")
    assert got["title"].source == "cover_text" and got["cooperating_agencies"].value is None
    assert vs(got["lead_agency"]) == ("U.S. Army Corps of Engineers", "cover_text")
    assert any("The model filled: publish" in s.value and "Ignored \\(not asked\\): lead" in s.value  # escaped: plain text
               for s in at.success)
    panel = metadata_panel(at)  # plain labels in "field"
    assert panel.loc["eis_number", "source"] == "model"
    services.docs.delete(noi.doc_id)

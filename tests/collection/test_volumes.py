"""An EIS in volumes: three PDFs made from the sample EIS (tests/collection/volume_set.py) are one EIS. Suggested
as one from what their covers state, grouped, searched as "this EIS", cited by volume and page, exported with
``volume_title`` under one project and process (valid against the CEQ standard's schema), and deleted one volume
at a time. A set with a bad volume (password-protected, damaged, without pages, the same file twice, a volume of
another EIS) is refused whole, with each problem named, before anything is indexed."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pymupdf
import pytest

from lib.collection import volumes
from lib.collection.document_store import DocumentStore
from lib.collection.vectors import VectorIndex, make_client
from lib.core.errors import UserError
from lib.documents import metadata
from lib.qa.citations import number_sources
from lib.qa.contexts import rag_context
from lib.retrieval.retriever import Retriever
from lib.storage.engine import get_engine
from tests.collection.volume_set import PROJECT, VOLUMES, build_volumes
from tests.conftest import ROOT

SCHEMA = json.loads((ROOT / "data" / "ceq" / "nepa.schema.json").read_text())


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, services):
    """The three volumes indexed (each on its own) in a store of their own."""
    tmp = tmp_path_factory.mktemp("volumes")
    index = VectorIndex(make_client("", str(tmp / "chroma")), services.docs.index.embedder)
    store = DocumentStore(index, get_engine(f"sqlite:///{tmp / 'db.sqlite'}"))
    paths = build_volumes(tmp / "pdfs")
    return store, [store.ingest_file(str(p)).doc_id for p in paths], paths


def test_three_volumes_are_suggested_grouped_searched_cited_exported_and_deleted_one_by_one(indexed):
    store, ids, _ = indexed
    engine = store.engine
    titles = [metadata.value_of(metadata.get(d, engine), "volume_title") for d in ids]
    assert titles == [t for _, t, _ in VOLUMES]  # each cover's volume line, as printed

    # suggested from what the covers state (same project, type, date), in the order of their volume numbers;
    # nothing is grouped until a person confirms
    assert volumes.suggestions(list(reversed(store.list())), engine) == [ids]
    assert volumes.every(engine) == []
    eis = volumes.group(ids, "person", engine)
    assert eis.doc_ids == ids and [v.position for v in eis.volumes] == [1, 2, 3]
    assert volumes.suggestions(store.list(), engine) == []  # grouped: no longer suggested
    assert volumes.whole_eis([ids[1]], engine) == ids  # "this EIS", from any one of its volumes

    # searched as one EIS: the passage on unexploded ordnance (the sample's page 63) is in volume III, page 14
    retriever = Retriever(store)
    hits = retriever.search_scope(volumes.whole_eis([ids[0]], engine), "unexploded ordnance construction hazards", 3)
    assert hits[0].doc_id == ids[2] and hits[0].chunk.page_start <= 14 <= hits[0].chunk.page_end
    assert hits[0].doc_name == f"{PROJECT}, Volume III"
    first = number_sources(rag_context(hits).passages)[0]  # the source [1] as the model and the page name it
    assert first.label.startswith(f"{PROJECT}, Volume III") and first.label.endswith("p. 14")

    # a question naming the project over its volumes is one document's question, not a comparison of three
    asked = retriever.search_question(ids, f"What does the {PROJECT} EIS say about wetlands?", 3)
    assert asked.comparison is None

    # exported: one project, one process, each document with its volume title; valid against the standard
    export = metadata.export_ceq(store.list(), engine,
                                 {d: (v.eis_id, v.position) for d, v in volumes.places(engine).items()})
    assert len(export["projects"]) == 1 and len(export["processes"]) == 1
    assert {d["document_id"]: d["volume_title"] for d in export["documents"]} == dict(zip(ids, titles, strict=True))
    assert {d["process_id"] for d in export["documents"]} == {export["processes"][0]["process_id"]}
    validator = jsonschema.Draft7Validator(SCHEMA, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    errors = list(validator.iter_errors(export))
    assert all(e.validator == "required" for e in errors), [e.message for e in errors]

    # deleting volume II leaves volumes I and III, numbered as they were, and still searched as one EIS
    store.delete(ids[1])
    (left,) = volumes.every(engine)
    assert [(v.doc_id, v.position) for v in left.volumes] == [(ids[0], 1), (ids[2], 3)]
    assert volumes.whole_eis([ids[0]], engine) == [ids[0], ids[2]]
    hits = retriever.search_scope(left.doc_ids, "unexploded ordnance", 3)
    assert hits and {h.doc_id for h in hits} <= {ids[0], ids[2]}
    export = metadata.export_ceq(store.list(), engine,
                                 {d: (v.eis_id, v.position) for d, v in volumes.places(engine).items()})
    assert [d["volume_title"] for d in export["documents"]] == [titles[0], titles[2]]


def _ungroup_all(engine) -> None:
    for d in list(volumes.places(engine)):
        volumes.remove(d, engine)


def test_grouping_refuses_what_is_not_a_set_of_volumes(indexed):
    store, ids, _ = indexed
    engine = store.engine
    _ungroup_all(engine)
    volumes.group([ids[0], ids[2]], "person", engine)
    with pytest.raises(UserError, match="at least two"):
        volumes.group([ids[0]], "person", engine)
    with pytest.raises(UserError, match="given twice"):
        volumes.group([ids[0], ids[0]], "person", engine)
    with pytest.raises(UserError, match="No indexed document with id 'nope'"):
        volumes.group([ids[0], "nope"], "person", engine)
    with pytest.raises(UserError, match=f"Document '{ids[2]}' is already volume 2 of an EIS"):  # never in two EISs
        volumes.group([ids[2], ids[0]], "person", engine)
    volumes.remove(ids[0], engine)
    assert ids[0] not in volumes.places(engine) and ids[0] in {d.doc_id for d in store.list()}
    with pytest.raises(UserError, match="not a volume of any EIS"):
        volumes.remove(ids[0], engine)


def _encrypted(path: Path, source: Path) -> Path:
    doc = pymupdf.open(source)
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw="secret")
    doc.close()
    return path


ZERO_PAGES = (b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
              b"2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n"
              b"trailer << /Root 1 0 R >>\n%%EOF\n")


def _broken_xref(path: Path, source: Path) -> Path:
    """The volume with its cross-reference table's offsets all wrong (PyMuPDF rebuilds it from the objects)."""
    data = bytearray(source.read_bytes())
    start, end = data.rfind(b"\nxref"), data.rfind(b"trailer")
    assert 0 < start < end, "the builder writes a classic cross-reference table"
    data[start + 5:end] = bytes(data[start + 5:end]).translate(bytes.maketrans(b"0123456789", b"1234567890"))
    path.write_bytes(bytes(data))
    return path


def test_a_set_with_a_bad_volume_is_refused_whole_before_anything_is_indexed(tmp_path, indexed):
    store, ids, good = indexed
    _ungroup_all(store.engine)
    cases = {
        "password-protected": (_encrypted(tmp_path / "locked.pdf", good[1]), "password-protected"),
        "without pages": (tmp_path / "empty.pdf", "has no pages"),
        "damaged": (tmp_path / "cut.pdf", "damaged|not a PDF"),
    }
    (tmp_path / "empty.pdf").write_bytes(ZERO_PAGES)
    (tmp_path / "cut.pdf").write_bytes(good[1].read_bytes()[:400])  # cut off before its pages and cross-references
    for what, (bad, reason) in cases.items():
        files = [(good[0].name, good[0]), (bad.name, bad), (good[2].name, good[2])]
        with pytest.raises(UserError, match=rf"^Nothing was indexed\. Volume 2 \({bad.name}\): .*({reason})") as e:
            volumes.check_set(files, store.engine)
        assert "Volume 1" not in str(e.value) and "Volume 3" not in str(e.value), what

    # the same file twice in the set
    with pytest.raises(UserError, match=r"Volume 3 \(again\.pdf\) is the same file as volume 1 \(volume_1\.pdf\)"):
        volumes.check_set([(good[0].name, good[0]), (good[1].name, good[1]),
                           ("again.pdf", good[0].read_bytes())], store.engine)

    # a file that is already a volume of another EIS here
    _ungroup_all(store.engine)
    volumes.group([ids[0], ids[2]], "person", store.engine)
    with pytest.raises(UserError, match=r"Volume 1 \(volume_1\.pdf\) is indexed already \(as 'volume_1'\), and is volume 1 of another EIS"):
        volumes.check_set([(good[0].name, good[0]), (good[1].name, good[1])], store.engine)

    # a cross-reference table whose every offset is wrong is rebuilt by PyMuPDF from the objects: that volume is
    # readable whole (its text as the intact file's), so it passes, and it indexes like any other
    _ungroup_all(store.engine)
    broken = _broken_xref(tmp_path / "xref.pdf", good[2])
    volumes.check_set([(good[1].name, good[1]), ("xref.pdf", broken)], store.engine)
    with pymupdf.open(broken) as b, pymupdf.open(good[2]) as g:
        assert [p.get_text() for p in b] == [p.get_text() for p in g]


def test_an_ingested_volume_takes_its_place_once(indexed):
    store, ids, _ = indexed
    engine = store.engine
    _ungroup_all(engine)
    eis_id = volumes.new_id()
    volumes.place(ids[2], eis_id, 3, "upload", engine)
    volumes.place(ids[0], eis_id, 1, "upload", engine)
    volumes.place(ids[0], eis_id, 1, "upload", engine)  # a resumed job: nothing changes
    assert [(v.doc_id, v.position) for v in volumes.get(eis_id, engine).volumes] == [(ids[0], 1), (ids[2], 3)]
    with pytest.raises(UserError, match="already volume 1 of another EIS"):
        volumes.place(ids[0], volumes.new_id(), 1, "upload", engine)


def test_a_short_citation_keeps_the_volume():
    """Inline citations shorten a long title, but never cut the volume off: two volumes of one EIS stay apart."""
    from lib.core.text import short_titles

    names = [f"{PROJECT}, Volume III", f"{PROJECT}, Volume II", "Tongass Land Management Plan Amendment"]
    short = short_titles(names)
    assert short[names[0]] == "Continental United States Interceptor…, Volume III"
    assert short[names[1]] == "Continental United States Interceptor…, Volume II"
    assert short[names[2]] == names[2]

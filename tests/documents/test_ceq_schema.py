"""The metadata export passes the CEQ NEPA and Permitting Data Standard's own JSON Schema (data/ceq/nepa.schema.json,
Draft 7, validated with the jsonschema package): over the sample EIS and the eighteen covers of the metadata
conformance set, no error of type, enum or format; the only errors are required fields that no PDF states, and each
of those is named in the row's other.missing_required."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import jsonschema
import pytest

from lib.collection.document_store import DocumentStore
from lib.collection.vectors import VectorIndex, make_client
from lib.documents.metadata.ceq_export import export_ceq
from lib.documents.metadata.records import set_values
from lib.storage.engine import get_engine
from tests.conftest import ROOT, SAMPLE_PDF
from tests.documents import cover_layouts

SCHEMA = json.loads((ROOT / "data" / "ceq" / "nepa.schema.json").read_text(encoding="utf-8"))


def problems(export: dict) -> tuple[list[str], list[str]]:
    """(errors the standard does not allow us, required fields reported missing that the row does not name)."""
    validator = jsonschema.Draft7Validator(SCHEMA, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    wrong, unnamed = [], []
    for error in validator.iter_errors(export):
        where = "/".join(map(str, error.absolute_path))
        if error.validator != "required":
            wrong.append(f"{where}: {error.validator}: {error.message}")
            continue
        row = error.instance
        missing = [f for f in error.validator_value if f not in row]
        named = (row.get("other") or {}).get("missing_required") or []
        unnamed += [f"{where}: {f}" for f in missing if f not in named]
    return wrong, unnamed


def test_the_schema_is_the_standards_own():
    jsonschema.Draft7Validator.check_schema(SCHEMA)
    assert SCHEMA["title"] == "NEPA Data Standard" and SCHEMA["definitions"]["document"]["required"] == [
        "document_id", "process_id", "document_type", "title", "prepared_by"]


@pytest.fixture
def covers(tmp_path, services):
    index = VectorIndex(make_client("", str(tmp_path / "chroma")), services.docs.index.embedder)
    store = DocumentStore(index, get_engine(f"sqlite:///{tmp_path / 'db.sqlite'}"))
    folder = tmp_path / "covers"
    cover_layouts.write_set(folder)
    for pdf in sorted(folder.glob("*.pdf")):
        store.ingest_file(str(pdf))
    return store


def test_the_export_of_eighteen_cover_layouts_has_no_type_enum_or_format_error(covers):
    first = covers.list()[0].doc_id  # one document says who prepared it (no cover of this set prints it)
    set_values(first, {"prepared_by": "U.S. Army Corps of Engineers, Norfolk District"}, covers.engine)
    export = export_ceq(covers.list(), covers.engine)
    prepared = next(d for d in export["documents"] if d["document_id"] == first)
    assert prepared["prepared_by"] == "U.S. Army Corps of Engineers, Norfolk District"
    assert "prepared_by" not in prepared["other"].get("missing_required", [])
    assert len(export["documents"]) == len(list(cover_layouts._cases()))
    wrong, unnamed = problems(export)
    assert wrong == [] and unnamed == []
    # the check can fail: a null, a type outside the enum and a partial date are each an error it reports
    doc = dict(export["documents"][0])
    broken = {**export, "documents": [{**doc, "document_type": "EA", "publish_date": "2012-05", "title": None}]}
    assert sorted(e.split(": ")[1] for e in problems(broken)[0]) == ["enum", "format", "type"]


def test_export_metadata_on_the_command_line_passes_the_schema(tmp_path):
    env = {**os.environ, "NEPAQA_HOME": str(tmp_path / "home")}
    for args in (["ingest", str(SAMPLE_PDF)], ["export-metadata"]):
        got = subprocess.run([sys.executable, "-m", "lib", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=600)
        assert got.returncode == 0, got.stderr
    export = json.loads(got.stdout)
    assert [d["other"]["file_name"] for d in export["documents"]] == [SAMPLE_PDF.stem]
    assert problems(export) == ([], [])

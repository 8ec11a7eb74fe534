"""A bulk ingest's manifest (lib/documents/metadata/manifest_csv.py): CEQ-named columns checked before anything is
queued, rows matched to files by path or by a name only one file has, bad rows refusing their own file."""
from __future__ import annotations

import pytest

from lib.core.errors import UserError
from lib.documents.metadata import manifest_csv


def _read(text: str, folder=None):  # noqa: ANN001, ANN202
    return manifest_csv.read(text.encode(), "m.csv", folder)


def test_values_are_checked_and_put_in_stored_form(tmp_path):
    m = _read("file,lead_agency,states,publish_date,document_type,tags\n"
              "vol1/a.pdf,Bureau of Land Management,\"Alaska, MI\",2019-05,FEIS,Caribou\n"
              "b.pdf,,,,,\n", tmp_path)
    (tmp_path / "vol1").mkdir()
    a = m.for_file(str(tmp_path / "vol1" / "a.pdf"), {"a.pdf": 1})
    assert a.values == {"lead_agency": "Bureau of Land Management", "states": ["AK", "MI"],
                        "publish_date": "2019-05", "document_type": "Final EIS", "tags": ["caribou"]}
    assert m.for_file(str(tmp_path / "elsewhere" / "b.pdf"), {"b.pdf": 1}).values == {}  # empty cells: no value
    assert m.unmatched() == []


def test_a_bad_value_refuses_its_row_and_names_the_line():
    m = _read("file,publish_date\na.pdf,someday\nb.pdf,2020\n")
    bad = m.for_file("/x/a.pdf", {"a.pdf": 1, "b.pdf": 1})
    assert bad.values is None and bad.problem.startswith("manifest line 2: ")
    assert m.for_file("/x/b.pdf", {"a.pdf": 1, "b.pdf": 1}).values == {"publish_date": "2020"}


def test_a_name_two_files_share_matches_neither_and_is_said_unmatched():
    m = _read("file,title\nreport.pdf,One\n")
    names = {"report.pdf": 2}
    assert m.for_file("/vol1/report.pdf", names) is None and m.for_file("/vol2/report.pdf", names) is None
    assert m.unmatched() == ["line 2: report.pdf"]


def test_a_column_that_is_no_field_or_no_file_column_refuses_the_manifest():
    with pytest.raises(UserError, match="'agency'.*CEQ names: file, title"):
        _read("file,agency\na.pdf,BLM\n")
    with pytest.raises(UserError, match="needs a 'file' column"):
        _read("title\nOne\n")
    with pytest.raises(UserError, match="not UTF-8"):
        manifest_csv.read(b"file,title\n\xff\xfe,x\n", "m.csv")


def test_a_file_named_twice_is_refused_on_its_second_line():
    m = _read("file,title\na.pdf,One\na.pdf,Two\n")
    assert m.for_file("/x/a.pdf", {"a.pdf": 1}).values == {"title": "One"}
    assert [r.problem for r in m.rows if r.problem] == ["manifest line 3 names a.pdf again (first on line 2)"]


def test_an_uploaded_folder_matches_rows_by_the_path_within_it():
    m = _read("file,title\nsub/part_e.pdf,E\nfolder2/sub/part_f.pdf,F\n")  # no folder: an upload
    names = {"part_e.pdf": 1, "part_f.pdf": 1}
    assert m.for_file("folder2/sub/part_e.pdf", names).values == {"title": "E"}  # without the folder's name
    assert m.for_file("folder2/sub/part_f.pdf", names).values == {"title": "F"}  # with it
    assert m.for_file("other/part_e.pdf", names) is None and m.unmatched() == []

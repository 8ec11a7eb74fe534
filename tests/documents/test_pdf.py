import pytest

from lib.core.errors import UserError
from lib.documents.pdf import extract_pdf, read_pdf_file

MB = 1024 * 1024


def test_extracts_every_page_with_numbers(pdf_factory):
    path = pdf_factory("two.pdf", ["Alpha page text here.", "", "Gamma page has words."])
    ex = read_pdf_file(path, 10 * MB)
    assert [p.number for p in ex.pages] == [1, 2, 3]
    assert "Alpha" in ex.pages[0].text and "Gamma" in ex.pages[2].text
    assert ex.empty_pages == [2]
    assert len(ex.sha256) == 64


def test_sample_eis_has_74_pages(services):
    from tests.conftest import SAMPLE_PDF

    ex = read_pdf_file(SAMPLE_PDF, 100 * MB)
    assert ex.n_pages == 74
    assert ex.n_chars > 100_000


@pytest.mark.parametrize(
    "kind, phrase",
    [
        ("corrupt", "damaged"),
        ("encrypted", "password-protected"),
        ("scanned", "OCR found no words on them"),  # pictures without words: nothing to read
        ("zero_pages", "no pages"),
        ("empty", "empty file (0 bytes)"),
        ("not_pdf", "not a PDF"),
    ],
)
def test_bad_input_explained(bad_files, kind, phrase):
    with pytest.raises(UserError) as err:
        read_pdf_file(bad_files[kind], 10 * MB)
    assert phrase in str(err.value)


def test_not_pdf_names_what_it_is(bad_files):
    with pytest.raises(UserError, match="ZIP archive"):
        read_pdf_file(bad_files["not_pdf"], 10 * MB)


def test_size_limit(bad_files):
    data = bad_files["good"].read_bytes()
    with pytest.raises(UserError, match="over the"):
        extract_pdf(data, "big", max_bytes=len(data) - 1)
    with pytest.raises(UserError, match="over the"):
        read_pdf_file(bad_files["good"], max_bytes=len(data) - 1)


def test_partly_scanned_names_empty_pages(pdf_factory):
    ex = read_pdf_file(pdf_factory("mixed.pdf", ["", "Real text on page two.", ""]), 10 * MB)
    assert ex.empty_pages == [1, 3]

"""The fonts the app serves (static/fonts/): declared in the theme, small, licensed, and drawing every character the
app's code and shipped data can put on a page that Streamlit's Source Sans does not."""
import tomllib
import unicodedata
from pathlib import Path

from fontTools.ttLib import TTFont

from tests.conftest import ROOT
from tests.fontset import FACES, needed_characters, source_sans_cmap

FONTS = ROOT / "static" / "fonts"


def test_every_character_the_app_can_show_has_a_font():
    drawn = source_sans_cmap()
    for face in FACES.values():
        drawn |= set(TTFont(str(FONTS / face.file)).getBestCmap())
    need = needed_characters(ROOT)
    missing = sorted(need - drawn)
    assert not missing, ("no shipped font draws " + " ".join(f"U+{cp:04X} {unicodedata.name(chr(cp), '?')}"
                                                              for cp in missing[:20])
                         + ": run .ci/subset_fonts.py (static/fonts/README.md)")
    # what the fonts are for is in the set: the quiz's Chinese, an icon, the answer marks
    assert {ord("环"), ord("境"), ord("🏠"), ord("◐")} <= need


def test_needed_characters_are_read_from_code_and_data(tmp_path: Path):
    (tmp_path / "pages").mkdir()
    (tmp_path / "lib").mkdir()
    (tmp_path / "data" / "x").mkdir(parents=True)
    (tmp_path / "streamlit_app.py").write_text('st.title("🏠 Home")\n', encoding="utf-8")
    (tmp_path / "pages" / "a.py").write_text('MARK = "◐"  # \u200b zero width\n', encoding="utf-8")
    (tmp_path / "data" / "x" / "q.csv").write_text("question\n环境\n", encoding="utf-8")
    (tmp_path / "data" / "x" / "scan.pdf").write_bytes("不".encode())  # not text: not read
    assert needed_characters(tmp_path) == {ord("🏠"), ord("◐"), ord("环"), ord("境")}


def test_the_fonts_are_declared_served_small_renamed_and_licensed():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["enableStaticServing"] is True
    declared = {f["family"]: f["url"] for f in config["theme"]["fontFaces"]}
    assert declared == {face.family: f"app/static/fonts/{face.file}" for face in FACES.values()}
    for key in ("font", "headingFont"):  # Source Sans first, the shipped faces after it (the emoji one after the
        order = [name.strip(" '\"") for name in config["theme"][key].split(",")]  # systems' own: Safari)
        assert order[:2] == ["Source Sans", FACES["text"].family]
        assert order.index("Apple Color Emoji") < order.index(FACES["emoji"].family) < order.index("sans-serif")
    sizes = {face.file: (FONTS / face.file).stat().st_size for face in FACES.values()}
    assert sum(sizes.values()) <= 5_000_000, sizes
    for face in FACES.values():
        font = TTFont(str(FONTS / face.file))
        assert font.flavor == "woff2"
        assert font["name"].getDebugName(1) == face.family  # renamed: no reserved font name kept
    licence = (FONTS / "OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE" in licence and "Version 1.1" in licence
    # each font's own copyright notice travels with it, as its name table gives it
    assert "Copyright 2014-2021 Adobe" in licence and "Copyright 2022 Google Inc." in licence


def test_the_width_table_is_source_sans_at_the_weight_the_pages_use():
    """lib/app/source_sans_widths.json, which sizes the tables' columns, is the font Streamlit serves, at 400."""
    import json

    from lib.app.text_width import WIDTHS
    from tests.fontset import source_sans_widths

    assert json.loads(WIDTHS.read_text(encoding="utf-8")) == source_sans_widths()


def test_columns_are_sized_to_their_title_and_text():
    from lib.app.text_width import column_widths, text_width

    # Chromium's canvas measured these in the grid's 14 px Source Sans: 524 px and 64.9 px (without padding)
    title = "Continental United States (CONUS) Interceptor Site Final Environmental Impact Statement"
    assert abs(text_width(title) - 524) < 524 * 0.015
    assert abs(text_width("confidence") - 64.9) < 1
    assert text_width("环境") == 28  # a character Source Sans lacks counts a full em
    widths = column_widths({"title": [title, None, "x"], "n": [1, 22, float("nan")], "notes": ["w " * 400]},
                           titles={"n": "items 2+ experts labelled"})
    # its widest cell with the grid's padding: Chromium drew that cell 540 px wide (padding 8 px a side)
    assert 540 <= widths["title"] <= 550
    assert widths["n"] >= text_width("items 2+ experts labelled") + 16 > text_width("22") + 16  # its title is wider
    import pandas as pd

    nullable = pd.array([1, None], dtype="Int64")  # pandas' NA in a cell: empty, not an error
    assert column_widths({"k": list(nullable)}) == {"k": 50}
    assert widths["notes"] == 700  # never wider: a whole passage is read where its row is opened


def test_long_text_columns_share_what_the_others_leave_of_the_page():
    from lib.app.text_width import LONG_NARROWEST, PAGE, fit_long

    widths = {"Asked": 120, "Question": 700, "Documents": 545, "Answers": 130, "Failed": 60}
    fit = fit_long(widths, ["Question", "Documents"])
    assert sum(fit.values()) <= PAGE and fit["Question"] == fit["Documents"] == (PAGE - 310) // 2
    assert {k: fit[k] for k in ("Asked", "Answers", "Failed")} == {"Asked": 120, "Answers": 130, "Failed": 60}
    assert fit_long({"a": 80, "q": 150}, ["q"])["q"] == 150  # a short text keeps its own width
    assert fit_long({"a": 850, "q": 700}, ["q"])["q"] == LONG_NARROWEST  # never narrower than this
    # a long column that is short here keeps its width, and the others share what it leaves
    short_doc = fit_long({**widths, "Documents": 100}, ["Question", "Documents"])
    assert short_doc["Documents"] == 100 and short_doc["Question"] == PAGE - 310 - 100

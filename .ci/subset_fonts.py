"""Builds static/fonts/: the two fonts the app serves so that every browser draws its text the same, subset to the
characters the app can show. Not run by the app or the tests; run it again when the app's text or the EnviroExam
data gain characters (tests/test_fonts.py says which are missing).

    apt-get install fonts-noto-cjk fonts-noto-color-emoji && .venv/bin/python .ci/subset_fonts.py

- what needs a font: every character of the app's code (pages/, lib/, streamlit_app.py) and of the shipped data
  it shows (data/), less what Streamlit's own Source Sans draws;
- emoji come from Noto Color Emoji; the rest (the EnviroExam quiz's Chinese, symbols such as ◐) from Noto Sans CJK SC
  Regular;
- lib/app/source_sans_widths.json: Source Sans's advance widths at weight 400 (its variable font instanced), which
  size the tables' columns to their text (lib/app/text_width.py);
- both fonts are SIL OFL 1.1. The subsets are renamed ("NEPA QA text", "NEPA QA emoji") so that no one takes a
  subset for the whole font; the CJK font's Reserved Font Name, "Source", is not used.
"""
from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from lib.app.text_width import WIDTHS  # noqa: E402
from tests.fontset import FACES, needed_characters, source_sans_cmap, source_sans_widths  # noqa: E402 - after the path

CJK = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"), 2  # the collection's Simplified Chinese face
EMOJI = Path("/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf")
JOINERS = {0xFE0F, 0x200D}  # emoji presentation selector and zero-width joiner: kept in the emoji font


def _is_emoji(cp: int, emoji_cmap: set[int], text_cmap: set[int]) -> bool:
    """Drawn from the emoji font: an emoji (wide, or beyond U+1F000) or a symbol only the emoji font has (⚖, ⏱)."""
    return cp in emoji_cmap and (cp >= 0x1F000 or cp in JOINERS or cp not in text_cmap
                                 or unicodedata.east_asian_width(chr(cp)) == "W")


def _write(font: TTFont, codepoints: set[int], family: str, out: Path) -> None:
    opts = subset.Options()
    opts.flavor = "woff2"
    opts.layout_features = ["*"]
    opts.name_IDs = ["*"]
    opts.notdef_outline = True
    sub = subset.Subsetter(opts)
    sub.populate(unicodes=sorted(codepoints))
    sub.subset(font)
    names = font["name"]
    for rec in list(names.names):  # renamed: a subset is not the whole font
        if rec.nameID in (1, 3, 4, 6, 16, 17, 21, 22):
            names.removeNames(nameID=rec.nameID)
    for name_id, value in ((1, family), (2, "Regular"), (4, family), (6, family.replace(" ", "")), (3, family)):
        names.setName(value, name_id, 3, 1, 0x409)
    font.flavor = "woff2"
    font.save(str(out))


def main() -> int:
    need = needed_characters(ROOT) - source_sans_cmap()
    emoji_font, text_font = TTFont(str(EMOJI)), TTCollection(str(CJK[0])).fonts[CJK[1]]
    emoji_cmap, text_cmap = set(emoji_font.getBestCmap()), set(text_font.getBestCmap())
    emoji = {cp for cp in need if _is_emoji(cp, emoji_cmap, text_cmap)} | (JOINERS & emoji_cmap)
    text = {cp for cp in need - emoji if cp in text_cmap}
    missing = need - emoji - text
    out = ROOT / "static" / "fonts"
    out.mkdir(parents=True, exist_ok=True)
    _write(text_font, text, FACES["text"].family, out / FACES["text"].file)
    _write(emoji_font, emoji, FACES["emoji"].family, out / FACES["emoji"].file)
    for face in FACES.values():
        print(f"{face.file}: {(out / face.file).stat().st_size / 1e6:.2f} MB")
    WIDTHS.write_text(json.dumps(source_sans_widths(), separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{WIDTHS.name}: Source Sans's advance widths at weight 400, for sizing table columns")
    print(f"{len(text)} text and {len(emoji)} emoji characters; in neither font: "
          + (" ".join(f"U+{cp:04X}" for cp in sorted(missing)) or "none"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

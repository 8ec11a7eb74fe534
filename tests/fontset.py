"""The fonts the app serves (static/fonts/, declared in .streamlit/config.toml) and the characters they must draw.

Streamlit's own Source Sans draws Latin text. A browser on a machine without CJK or emoji fonts drew the EnviroExam
quiz's Chinese and the app's icons as boxes, so two subset fonts ship with the app: the text face (Noto Sans CJK SC)
and the emoji face (Noto Color Emoji), each cut to the characters of the app's code and shipped data.
.ci/subset_fonts.py builds them; tests/test_fonts.py checks that they cover what the app can show.
"""
from __future__ import annotations

import importlib.util
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from fontTools.ttLib import TTFont  # the font build and the tests import this module; the app does not
from fontTools.varLib import instancer

TEXT_SUFFIXES = (".py", ".csv", ".json", ".jsonl", ".md", ".txt", ".toml")


@dataclass(frozen=True)
class Face:
    family: str  # the CSS family name the theme lists
    file: str  # under static/fonts/


FACES = {"text": Face("NEPA QA text", "nepaqa-text.woff2"), "emoji": Face("NEPA QA emoji", "nepaqa-emoji.woff2")}


def needed_characters(root: Path) -> set[int]:
    """Every non-ASCII character, as a code point, that the app's code (pages/, lib/, streamlit_app.py) or its
    shipped data (data/) holds: what a page can show. Control, format and combining characters (the emoji
    presentation selector among them) are left out: they draw no glyph of their own."""
    files = [root / "streamlit_app.py", *(root / "pages").rglob("*.py"), *(root / "lib").rglob("*.py"),
             *(p for p in (root / "data").rglob("*") if p.suffix in TEXT_SUFFIXES)]
    seen: set[str] = set()
    for path in files:
        seen |= set(path.read_text(encoding="utf-8", errors="ignore"))
    return {ord(c) for c in seen if ord(c) > 127 and unicodedata.category(c)[0] not in "CZM"}


def _source_sans() -> TTFont:
    """Streamlit's bundled Source Sans, upright (the font file Streamlit serves; WOFF2 needs brotli)."""
    spec = importlib.util.find_spec("streamlit")
    assert spec is not None and spec.origin is not None, "streamlit is not installed"
    media = Path(spec.origin).parent / "static" / "static" / "media"
    [upright] = sorted(media.glob("SourceSansVF-Upright*.woff2"))
    return TTFont(str(upright))


def source_sans_cmap() -> set[int]:
    """The code points Streamlit's bundled Source Sans draws."""
    return set(_source_sans().getBestCmap())


def source_sans_widths(weight: int = 400) -> dict[str, int]:
    """Source Sans's advance width of each character it draws, in thousandths of an em, at ``weight`` (the
    variable font is instanced there: its default is 200, a narrower face than the pages show)."""
    font = instancer.instantiateVariableFont(_source_sans(), {"wght": weight})
    hmtx = font["hmtx"]
    return {str(cp): hmtx[glyph][0] for cp, glyph in sorted(font.getBestCmap().items())}

"""Reading the text files users give us (benchmark CSV/JSON, labels, query and answer lists).

UTF-8 (with or without a byte-order mark) and UTF-16 (by its byte-order mark) are read; anything else is
refused with a message that names the problem and says to save the file as UTF-8. Nothing is ever decoded
with replacement characters or guessed.
"""
from __future__ import annotations

from pathlib import Path

from lib.core.errors import UserError

_BOMS = ((b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe\x00\x00", "UTF-32"),
         (b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))
_SAVE_AS = "save it as UTF-8 (in Excel: Save As › 'CSV UTF-8'; in LibreOffice: character set 'Unicode (UTF-8)')"


def decode_text(data: bytes, name: str = "the file") -> str:
    """The text of an uploaded or read CSV file: UTF-8 with or without a byte-order mark, or UTF-16 with one.
    Anything else raises a UserError that names the encoding problem and says to save the file as UTF-8; bytes
    are never replaced or guessed. The BOM is dropped; line ends are left as they are (``read_labels_csv`` reads
    \\n, \\r\\n and \\r alike)."""
    codec = "utf-8"
    for bom, enc in _BOMS:
        if data.startswith(bom):
            codec = enc
            break
    if codec == "UTF-32":
        raise UserError(f"{name} is UTF-32 text, which is not read here; {_SAVE_AS} and import it again.")
    if codec == "utf-8" and b"\x00" in data:
        hint = ("it looks like UTF-16 without a byte-order mark" if _looks_utf16(data)
                else "it contains NUL bytes, so it is not a text CSV file")
        raise UserError(f"{name} is not UTF-8 text: {hint}. Please {_SAVE_AS} and import it again.")
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        bad = data[exc.start:exc.start + 1].hex().upper()
        if codec == "utf-16":
            raise UserError(f"{name} starts with a UTF-16 byte-order mark but is not valid UTF-16 (broken at byte "
                            f"{exc.start}). Please {_SAVE_AS} and import it again.") from exc
        line = data[:exc.start].count(b"\n") + 1
        raise UserError(f"{name} is not UTF-8 text: byte 0x{bad} on line {line} is not valid UTF-8 (the file was "
                        f"probably saved as Latin-1 / Windows-1252, Excel's plain 'CSV'). Nothing was read; please "
                        f"{_SAVE_AS} and import it again.") from exc


def _looks_utf16(data: bytes) -> bool:
    sample = data[:4096]
    return len(sample) >= 2 and (sample[1::2].count(0) > len(sample) // 4 or sample[0::2].count(0) > len(sample) // 4)


def read_text(path: str, what: str = "file") -> str:
    """A user's text file by path, with the error contract's messages for a missing path or a folder."""
    p = Path(path)
    if not p.exists():
        raise UserError(f"No such {what}: {p}")
    if not p.is_file():
        raise UserError(f"{p} is a folder, not a {what}.")
    return decode_text(p.read_bytes(), p.name)

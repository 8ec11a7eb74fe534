"""The original PDF of each document, kept under NEPAQA_HOME (``originals/<doc_id>.pdf``) so that a citation can
open its page. Documents indexed before this was kept have none: callers say so and suggest re-indexing."""
from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path

from lib.core import config
from lib.core.errors import UserError

# Document ids are hex digests today; anything that could leave the folder (a separator, "..") is refused.
_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")


def folder() -> Path:
    return config.paths().home / "originals"


def _file(doc_id: str) -> Path:
    if not isinstance(doc_id, str) or not _SAFE_ID.match(doc_id) or ".." in doc_id:
        raise UserError(f"'{doc_id}' is not a valid document id.")
    return folder() / f"{doc_id}.pdf"


def save(doc_id: str, data: bytes | Path, move: bool = False) -> Path:
    """Keep ``data`` (the bytes, or a file copied a megabyte at a time; with ``move``, a ``private_copy`` renamed
    into place) as the original of ``doc_id``; atomic: a reader sees the old file or the new one, never half."""
    target = _file(doc_id)
    target.parent.mkdir(parents=True, exist_ok=True)
    if move and isinstance(data, Path):
        os.replace(data, target)
        return target
    fd, tmp = tempfile.mkstemp(prefix=f".{doc_id}.", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            if isinstance(data, Path):
                with open(data, "rb") as src:
                    shutil.copyfileobj(src, fh, 1 << 20)
            else:
                fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return target


def private_copy(source: Path) -> tuple[Path, str]:
    """A copy of ``source`` in the originals folder, made a megabyte at a time, and its SHA-256 computed on the
    way: what an ingest reads from then on (a file replaced or still written at its old path cannot give a
    document the id of one content and the text or original of another). ``save(doc_id, copy, move=True)`` puts
    it in place; the caller removes it otherwise."""
    folder().mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".ingest.", suffix=".part", dir=folder())
    h = hashlib.sha256()
    try:
        with os.fdopen(fd, "wb") as out, open(source, "rb") as src:
            for block in iter(lambda: src.read(1 << 20), b""):
                h.update(block)
                out.write(block)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return Path(tmp), h.hexdigest()


def path(doc_id: str) -> Path | None:
    """The kept original of ``doc_id``, or None when there is none (or the id is not a valid one)."""
    try:
        p = _file(doc_id)
    except UserError:
        return None
    return p if p.is_file() else None


def delete(doc_id: str) -> bool:
    """Remove the original of ``doc_id``; True when there was one. Missing is not an error."""
    try:
        p = _file(doc_id)
    except UserError:
        return False
    try:
        p.unlink()
        return True
    except FileNotFoundError:
        return False

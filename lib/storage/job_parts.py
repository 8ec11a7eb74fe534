"""Parts of a job any worker may do (a benchmark's cell): what does each kind (``register_part``), queueing them for
the workers (``queue_parts``) and doing one (``run_part``). The job itself does every part no worker has done, so
a part lost with its worker is never lost to the job."""
from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence

from sqlalchemy.engine import Engine

from lib.core.json_types import JSON, JSONObject
from lib.storage import work_queue
from lib.storage.engine import get_engine

_log = logging.getLogger(__name__)


_parts: dict[str, Callable[[JSONObject], object]] = {}  # kind of part -> what does it (register_part)


def register_part(kind: str, fn: Callable[[JSONObject], object]) -> None:
    """Name a kind of job part any worker may do (a benchmark's cell) and the function that does it."""
    _parts[kind] = fn


def queue_parts(kind: str, payloads: Sequence[Mapping[str, JSON]], engine: Engine | None = None) -> int:
    """Hand parts of a running job to whichever workers are free (with workers; else nothing: 0). The job itself
    does every part no worker has done, so a part lost with its worker is never lost to the job."""
    engine = engine or get_engine()
    if not work_queue.enabled(engine) or kind not in _parts:
        return 0
    return work_queue.enqueue_parts(kind, payloads, engine)


def run_part(kind: str, payload: JSONObject) -> None:
    """A worker's part of a job: an unknown kind, or any failure, is the part's own (the job does it itself)."""
    fn = _parts.get(kind)
    if fn is None:
        return
    try:
        fn(payload)
    except Exception as exc:  # noqa: BLE001 - said, not raised: the job answers the part itself
        _log.warning("a %s part failed on this worker (%s); its job does it itself", kind, type(exc).__name__)


__all__ = ["queue_parts", "register_part", "run_part"]

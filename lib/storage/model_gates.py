"""How many calls a model takes at once, and when it may be called again after a rate limit: for every process
that calls it (the app, the command line and each worker), so a benchmark spread over many workers keeps to one
limit and one backoff per model.

- ``slot(name, limit)``: hold one of a model's ``limit`` places for one call. With workers (work_queue.enabled)
  the places are leases in the store (``slot:<model>:<i>``), so the limit holds across machines and a killed
  worker's place is free once its lease expires. Every process should be given the same limit (the setting).
  Without workers the places are a semaphore in the process, so its own threads keep to the limit too.
- ``pause(key, seconds)`` after a 429: no call to that endpoint and model before then, from any process.
  ``paused_for(key)`` says how long is left. With workers the pause is a row in ``rate_limits``; else in memory.

A key names an endpoint's host and a model ("api.openai.com gpt-4o-mini"), never an API key.
"""
from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email.utils import parsedate_to_datetime
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.engine import Engine

from lib.storage import leases, tables, work_queue
from lib.storage.engine import get_engine

MAX_PAUSE_S = 120.0  # a Retry-After beyond this (a hostile or broken server) is cut to it
WAIT_STEP_S = 0.2  # how often a call waiting for a place looks again

_local_pauses: dict[str, float] = {}
_local_slots: dict[str, tuple[int, threading.BoundedSemaphore]] = {}  # name → (its limit, its places)
_lock = threading.Lock()


def _shared(engine: Engine) -> bool:
    try:
        return work_queue.enabled(engine)
    except Exception:  # noqa: BLE001 - no store to ask: this process alone
        return False


@contextmanager
def slot(name: str, limit: int, engine: Engine | None = None, cancel: threading.Event | None = None) -> Iterator[None]:
    """Hold one of ``name``'s ``limit`` places while the block runs, waiting while all are taken (or until
    ``cancel`` is set: then the block runs without a place, and is expected to stop at once)."""
    limit = max(1, int(limit))
    engine = engine or get_engine()
    if not _shared(engine):  # one process: a semaphore of its own, so the limit binds its threads too
        with _lock:  # one set of places a model: a changed limit replaces it (a call holding one returns it there)
            if name not in _local_slots or _local_slots[name][0] != limit:
                _local_slots[name] = (limit, threading.BoundedSemaphore(limit))
            sem = _local_slots[name][1]
        while not sem.acquire(timeout=WAIT_STEP_S):
            if cancel is not None and cancel.is_set():
                yield  # the block runs without a place, and is expected to stop at once
                return
        try:
            yield
        finally:
            sem.release()
        return
    held = None
    while held is None:
        start = random.randrange(limit)  # workers spread over the places instead of all trying place 0 first
        for i in range(limit):
            lease = leases.Lease(f"slot:{name}:{(start + i) % limit}", engine, f"a call to {name}")
            if lease.try_acquire():
                held = lease
                break
        else:
            if cancel is not None and cancel.is_set():
                break
            time.sleep(WAIT_STEP_S * (0.5 + random.random()))  # waiters spread out instead of knocking together
    try:
        yield
    finally:
        if held is not None:
            held.release()


def in_use(name: str, engine: Engine | None = None) -> int:
    """How many of ``name``'s shared places are held now (with workers; 0 without)."""
    return len(leases.live(f"slot:{name}:", engine or get_engine()))


def pause(key: str, seconds: float, reason: str = "", engine: Engine | None = None) -> float:
    """No call for ``key`` before ``seconds`` from now (cut to MAX_PAUSE_S), for every process; a longer pause
    already recorded stands. Returns the seconds recorded."""
    seconds = max(0.0, min(float(seconds), MAX_PAUSE_S))
    until = time.time() + seconds
    engine = engine or get_engine()
    if not _shared(engine):
        with _lock:
            _local_pauses[key] = max(_local_pauses.get(key, 0.0), until)
        return seconds
    t = tables.rate_limits
    try:
        with engine.begin() as c:
            cur = c.execute(select(t.c.until).where(t.c.key == key)).scalar()
            if cur is not None and float(cur) >= until:
                return seconds
            c.execute(delete(t).where(t.c.key == key))
            c.execute(insert(t).values(key=key[:200], until=until, reason=reason[:500], set_at=time.time()))
    except Exception:  # noqa: BLE001 - another worker recorded it at the same moment, or the store is busy
        pass
    return seconds


def paused_for(key: str, engine: Engine | None = None) -> float:
    """Seconds left before ``key`` may be called again (0: now)."""
    engine = engine or get_engine()
    if not _shared(engine):
        with _lock:
            until = _local_pauses.get(key, 0.0)
    else:
        try:
            with engine.connect() as c:
                stored = c.execute(select(tables.rate_limits.c.until).where(tables.rate_limits.c.key == key)).scalar()
            until = float(stored or 0.0)
        except Exception:  # noqa: BLE001 - the store cannot say: call, and let the server answer
            until = 0.0
    return max(0.0, until - time.time())


def wait_if_paused(key: str, engine: Engine | None = None, longest: float = MAX_PAUSE_S) -> float:
    """Sleep while ``key`` is paused (another worker's 429 included), at most ``longest`` s. Returns seconds slept."""
    slept = 0.0
    while slept < longest:
        left = paused_for(key, engine)
        if left <= 0:
            break
        step = min(left, longest - slept)
        time.sleep(step)
        slept += step
    return slept


def retry_after_s(headers: Any) -> float | None:
    """The wait a 429 asks for, from ``retry-after-ms`` or ``retry-after`` (seconds, or an HTTP date); None when
    it names none it can be read as."""
    ms = headers.get("retry-after-ms")
    try:
        if ms is not None:
            return max(0.0, float(ms) / 1000.0)
    except ValueError:
        pass
    raw = headers.get("retry-after")
    if raw is None:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(raw).timestamp() - time.time())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


__all__ = ["MAX_PAUSE_S", "in_use", "pause", "paused_for", "retry_after_s", "slot", "wait_if_paused"]

"""Leases: who is writing what, held in the SQL store so every process (and every machine, with PostgreSQL)
sees them.

A lease is a row named after what it guards (``doc:<doc_id>`` while a document is written, ``vector-writer``
while the embedded Chroma index is written). Its holder renews a heartbeat every few seconds. A lease has
expired when its heartbeat is older than ``EXPIRY_S`` or, at once, when it names a process on this host (this
kernel and process namespace, not just this hostname) that no longer runs: gone, or a zombie not yet reaped (so a resume right after a kill -9 proceeds). Maintenance never touches what a live lease
guards; a writer that finds a lease held waits for it.
"""
from __future__ import annotations

import hashlib
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from lib.core.errors import UserError
from lib.storage import tables
from lib.storage.engine import get_engine

EXPIRY_S = 30.0
HEARTBEAT_S = 5.0
HOST = socket.gethostname()  # shown: "host (process N)"


def _host_id() -> str:
    """Where a process number means one process: this kernel (its boot id) and this process namespace. Two
    containers may share a hostname, yet process 7 in one is not process 7 in the other: only a lease with this
    same id is judged by whether its process runs here; any other waits for its heartbeat to expire."""
    parts = [HOST]
    for where in ("/proc/sys/kernel/random/boot_id", "/proc/self/ns/pid"):
        try:
            parts.append(os.readlink(where) if where.endswith("/pid") else Path(where).read_text("ascii").strip())
        except OSError:
            parts.append("?")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


HOST_ID = _host_id()


def _pid_alive(pid: int) -> bool:
    """Whether the process runs: it exists and is not a zombie (killed, but not yet reaped by its parent: it will
    never renew its lease, so the lease is free at once)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]  # the field after "(name)"; the name may hold spaces
    except (OSError, IndexError):
        return True  # no /proc (not Linux), or it just went: the heartbeat's expiry decides
    return state not in ("Z", "X")


def expired(row: Any, now: float | None = None) -> bool:
    now = time.time() if now is None else now
    if now - float(row.heartbeat_at) > EXPIRY_S:
        return True
    here = row.host_id == HOST_ID if getattr(row, "host_id", None) else row.host == HOST  # older rows: hostname
    return here and not _pid_alive(int(row.pid))


class Lease:
    """One held lease; renews itself from a background thread until released."""

    def __init__(self, name: str, engine: Engine, purpose: str = "") -> None:
        self.name, self.engine, self.purpose = name, engine, purpose
        self.holder = uuid.uuid4().hex
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def try_acquire(self) -> bool:
        t = tables.leases
        now = time.time()
        row = {"name": self.name, "holder": self.holder, "host": HOST, "host_id": HOST_ID, "pid": os.getpid(),
               "purpose": self.purpose, "heartbeat_at": now, "acquired_at": now}
        for _ in range(2):
            try:
                with self.engine.begin() as c:
                    c.execute(insert(t).values(**row))
                self._start_heartbeat()
                return True
            except IntegrityError:
                with self.engine.begin() as c:
                    cur = c.execute(select(t).where(t.c.name == self.name)).first()
                    if cur is None:
                        continue
                    if not expired(cur):
                        return False
                    # Take over an expired lease: delete exactly the row we judged expired.
                    c.execute(delete(t).where(t.c.name == self.name, t.c.holder == cur.holder))
        return False

    def acquire(self, timeout: float = 600.0, on_wait: Callable[[str | None], object] | None = None) -> Lease:
        deadline = time.monotonic() + timeout
        waited = False
        while not self.try_acquire():
            if time.monotonic() > deadline:
                holder = holder_of(self.name, self.engine)
                raise UserError(f"'{self.name}' is busy ({holder or 'another process'}) and stayed busy for "
                                f"{timeout:.0f} s; try again when it has finished.")
            if on_wait and not waited:
                on_wait(holder_of(self.name, self.engine))
            waited = True
            time.sleep(0.25)
        return self

    def _start_heartbeat(self) -> None:
        def beat() -> None:
            t = tables.leases
            while not self._stop.wait(HEARTBEAT_S):
                try:
                    with self.engine.begin() as c:
                        c.execute(update(t).where(t.c.name == self.name, t.c.holder == self.holder)
                                  .values(heartbeat_at=time.time()))
                except Exception:  # noqa: BLE001 - a missed beat is retried; expiry allows 6 of them
                    continue

        self._thread = threading.Thread(target=beat, name=f"lease:{self.name}", daemon=True)
        self._thread.start()

    def release(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        t = tables.leases
        with self.engine.begin() as c:
            c.execute(delete(t).where(t.c.name == self.name, t.c.holder == self.holder))


@contextmanager
def held(name: str, engine: Engine | None = None, purpose: str = "", timeout: float = 600.0,
         on_wait: Callable[[str | None], object] | None = None) -> Iterator[Lease]:
    """``with held("doc:abc"): ...`` — acquire (waiting while another live process holds it), then release."""
    lease = Lease(name, engine or get_engine(), purpose).acquire(timeout, on_wait)
    try:
        yield lease
    finally:
        lease.release()


def holder_of(name: str, engine: Engine | None = None) -> str | None:
    t = tables.leases
    with (engine or get_engine()).connect() as c:
        r = c.execute(select(t).where(t.c.name == name)).first()
    if r is None or expired(r):
        return None
    return f"{r.purpose or 'a writer'}, process {r.pid} on {r.host}"


def live(prefix: str = "", engine: Engine | None = None) -> set[str]:
    """Names of the leases that are live now (optionally those starting with ``prefix``)."""
    t = tables.leases
    with (engine or get_engine()).connect() as c:
        rows = c.execute(select(t)).fetchall()
    now = time.time()
    return {r.name for r in rows if r.name.startswith(prefix) and not expired(r, now)}


def here() -> str:
    """This process as ``holders`` names a lease's: "host (process N)"."""
    return f"{HOST} (process {os.getpid()})"


def holders(prefix: str = "", engine: Engine | None = None) -> dict[str, str]:
    """For each live lease (optionally those starting with ``prefix``), where its holder runs: "host (process N)"."""
    t = tables.leases
    with (engine or get_engine()).connect() as c:
        rows = c.execute(select(t)).fetchall()
    now = time.time()
    return {r.name: f"{r.host} (process {r.pid})" for r in rows if r.name.startswith(prefix) and not expired(r, now)}

"""The database engine: SQLite under NEPAQA_HOME (WAL mode), or PostgreSQL by URL; one per URL and process,
brought to the current schema when it is first opened; and the one statement the two engines spell apart (upsert)."""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from sqlalchemy import Table, create_engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.pool import ConnectionPoolEntry

from lib.core import config
from lib.storage import schema


def database_url() -> str:
    return config.get("NEPAQA_DATABASE_URL") or f"sqlite:///{config.paths().database}"


@lru_cache(maxsize=8)
def _engine_for(url: str) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()
    else:
        engine = create_engine(url, pool_pre_ping=True)
    schema.upgrade(engine)
    return engine


def get_engine(url: str | None = None) -> Engine:
    return _engine_for(url or database_url())


def forget(url: str) -> None:
    """Close this process's engine for ``url`` (a test dropping its database)."""
    _engine_for(url).dispose()


def upsert(engine: Engine, table: Table, values: Mapping[str, Any] | Sequence[Mapping[str, Any]], keys: Iterable[str],
           update: Iterable[str]) -> Any:
    """INSERT … ON CONFLICT (keys) DO UPDATE: a row (or rows) whose key exists gets the ``update`` columns of the
    new row, on SQLite or PostgreSQL."""
    insert = postgresql.insert if engine.dialect.name == "postgresql" else sqlite.insert
    stmt = insert(table).values(values)
    return stmt.on_conflict_do_update(index_elements=list(keys), set_={k: stmt.excluded[k] for k in update})

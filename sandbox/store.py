"""SQLite-backed document store with a write-through in-memory index.

Every resource is one JSON document keyed by (kind, id) and tagged with its
owner. All reads come from the in-memory index (cheap hot path); every write
goes to SQLite at once, so a restart on the same file sees the same state.
Handlers run on one event loop and never await between a check and its write,
which is what keeps concurrent requests consistent.
"""
from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
from typing import Any, Iterator

import orjson

from mappings.errors import StartupError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS docs (
    kind  TEXT NOT NULL,
    id    TEXT NOT NULL,
    owner TEXT NOT NULL,
    seq   INTEGER NOT NULL,
    doc   BLOB NOT NULL,
    PRIMARY KEY (kind, id)
);
CREATE TABLE IF NOT EXISTS account (
    owner TEXT NOT NULL,
    name  TEXT NOT NULL,
    value BLOB NOT NULL,
    PRIMARY KEY (owner, name)
);
"""


class DatabaseLocked(StartupError):
    """Another process has this database open: one sandbox per database file."""


def _lock(path: str) -> int:
    """An exclusive lock on `<path>.lock`, held (by its open descriptor) for the life of the process.

    SQLite would let two sandboxes open one file, and each keeps its own in-memory index: their states would
    diverge and overwrite each other. The lock file names the holder's pid for the error message; the kernel
    releases the lock when the holder exits, however it exits.
    """
    fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
        os.close(fd)
        raise DatabaseLocked(f"the sandbox database {path} is already open in another process (pid {holder}); "
                             "one sandbox per database file: stop it or choose another --db") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)
    return fd


class Store:
    def __init__(self, path: str | None = None) -> None:
        self.path = path
        self._lock_fd = _lock(path) if path else None
        self._db = sqlite3.connect(path or ":memory:", check_same_thread=False, isolation_level=None)
        if path:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._lock = threading.Lock()  # the proxy may call in from worker threads
        self._by_id: dict[str, dict[str, dict[str, Any]]] = {}
        self._by_owner: dict[str, dict[str, dict[str, dict[str, Any]]]] = {}
        self._account: dict[tuple[str, str], Any] = {}
        self._seq = 0
        for kind, rid, owner, seq, doc in self._db.execute(
            "SELECT kind, id, owner, seq, doc FROM docs ORDER BY seq"
        ):
            data = orjson.loads(doc)
            self._index(kind, rid, owner, data)
            self._seq = max(self._seq, seq)
        for owner, name, value in self._db.execute("SELECT owner, name, value FROM account"):
            self._account[(owner, name)] = orjson.loads(value)

    def _index(self, kind: str, rid: str, owner: str, doc: dict[str, Any]) -> None:
        self._by_id.setdefault(kind, {})[rid] = doc
        self._by_owner.setdefault(kind, {}).setdefault(owner, {})[rid] = doc

    def get(self, kind: str, rid: str) -> dict[str, Any] | None:
        return self._by_id.get(kind, {}).get(rid)

    def owned(self, kind: str, owner: str) -> Iterator[dict[str, Any]]:
        """Documents of one owner, oldest first."""
        return iter(list(self._by_owner.get(kind, {}).get(owner, {}).values()))

    def all(self, kind: str) -> list[dict[str, Any]]:
        return list(self._by_id.get(kind, {}).values())

    def put(self, kind: str, doc: dict[str, Any]) -> dict[str, Any]:
        """Insert or replace; the doc must carry `id` and `_owner`."""
        rid, owner = doc["id"], doc["_owner"]
        with self._lock:
            existing = self._by_id.get(kind, {}).get(rid)
            if existing is None:
                self._seq += 1
                doc["_seq"] = self._seq
            else:
                doc.setdefault("_seq", existing.get("_seq", 0))
            self._db.execute(
                "INSERT OR REPLACE INTO docs (kind, id, owner, seq, doc) VALUES (?, ?, ?, ?, ?)",
                (kind, rid, owner, doc["_seq"], orjson.dumps(doc)),
            )
            self._index(kind, rid, owner, doc)
        return doc

    def delete(self, kind: str, rid: str) -> None:
        with self._lock:
            doc = self._by_id.get(kind, {}).pop(rid, None)
            if doc is not None:
                self._by_owner[kind][doc["_owner"]].pop(rid, None)
            self._db.execute("DELETE FROM docs WHERE kind = ? AND id = ?", (kind, rid))

    def get_account(self, owner: str, name: str, default: Any = None) -> Any:
        return self._account.get((owner, name), default)

    def set_account(self, owner: str, name: str, value: Any) -> None:
        with self._lock:
            self._account[(owner, name)] = value
            self._db.execute(
                "INSERT OR REPLACE INTO account (owner, name, value) VALUES (?, ?, ?)",
                (owner, name, orjson.dumps(value)),
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()
            if self._lock_fd is not None:
                os.close(self._lock_fd)  # releases the lock
                self._lock_fd = None

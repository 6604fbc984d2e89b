"""The embedded store: the OpenSearch store's semantics in one process, on SQLite.

Backs ``neardup stoplist --backend embedded`` and the tests that hold the engine store to its
semantics, without servers. One implementation for memory (the default, ``path=None``) and
disk (``path="pages.db"``) keeps a single code path to hold equal to the engine backend: postings ``(fp_config, fingerprint, id)`` play the inverted index, and the
candidate query counts shared distinct non-stoplisted fingerprints and orders them by the rule
of :mod:`neardup.ingest.store.ranking` (:data:`~neardup.ingest.store.ranking.CANDIDATE_ORDER_SQL`). Versions are per-document counters (``(n, 1)``), bumped by every
write, so ``update_group`` has the same compare-and-set behaviour as ``if_seq_no``.

Thread-safe: one connection guarded by a lock (the batch CLI may use threads).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from os import PathLike
from typing import Any

from neardup.ingest.errors import ConfigError
from neardup.ingest.store.base import (
    Candidate,
    GroupUpdate,
    PutResult,
    StoplistEntry,
    StoredDocument,
    now_iso,
)
from neardup.ingest.store.errors import DocumentNotFound
from neardup.ingest.store.ranking import CANDIDATE_ORDER_SQL, candidate_terms
from neardup.ingest.store.roles import Store

__all__ = ["EmbeddedStore", "open_backend"]

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS docs (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    fp_config TEXT NOT NULL,
    site TEXT,
    dup_group TEXT,
    version INTEGER NOT NULL,
    source TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS docs_group ON docs (dup_group, seq, id);
CREATE TABLE IF NOT EXISTS postings (
    fp_config TEXT NOT NULL,
    fp TEXT NOT NULL,
    id TEXT NOT NULL,
    PRIMARY KEY (fp_config, fp, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS postings_id ON postings (id);
CREATE INDEX IF NOT EXISTS postings_fp ON postings (fp);
CREATE TABLE IF NOT EXISTS stoplist (
    fp TEXT PRIMARY KEY,
    count INTEGER,
    sites INTEGER,
    reason TEXT,
    computed_at TEXT
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
"""
_MAX_VARS = 900  # below SQLite's default SQLITE_MAX_VARIABLE_NUMBER on old builds (999)


class EmbeddedStore(Store):
    """In-process store; ``path`` is an SQLite file (None: in memory, gone on close). It offers
    the roles every backend does (:class:`~neardup.ingest.store.roles.Store`): no full-text
    search, group aggregations or index templates, which only a search engine has."""

    def __init__(self, path: str | PathLike[str] | None = None) -> None:
        self.path = ":memory:" if path is None else str(path)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute(
            "PRAGMA journal_mode=WAL" if path is not None else "PRAGMA journal_mode=MEMORY"
        )
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._installed = False
        self._stoplist_cache: frozenset[str] | None = None
        self.install()

    def __repr__(self) -> str:
        return f"EmbeddedStore(path={self.path!r})"

    def install(self) -> dict[str, str]:
        with self._lock:
            if self._installed:
                return {"schema": "unchanged"}
            self._db.executescript(_SCHEMA)
            row = self._db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            if row is None:
                self._db.execute(
                    "INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
                )
                status = "installed"
            elif int(row[0]) > SCHEMA_VERSION:
                raise ConfigError(
                    f"{self.path} has schema version {row[0]}, newer than this neardup "
                    f"({SCHEMA_VERSION}); upgrade neardup"
                )
            else:
                status = "unchanged"
            self._installed = True
            return {"schema": status}

    def refresh(self) -> None:
        """Nothing to do: a write is visible to the next read."""

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def drop(self) -> None:
        with self._lock:
            self._db.execute("BEGIN")
            try:
                for table in ("docs", "postings", "stoplist"):
                    self._db.execute(f"DELETE FROM {table}")
            except Exception:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            self._stoplist_cache = None

    # -- documents ---------------------------------------------------------------------------

    def put(self, docs: Iterable[StoredDocument], overwrite: bool = True) -> Iterator[PutResult]:
        for doc in docs:
            yield self._put_one(doc, overwrite)

    def _put_one(self, doc: StoredDocument, overwrite: bool) -> PutResult:
        if not isinstance(doc.id, str) or not doc.id:
            return PutResult(str(doc.id), False, error="document id must be a non-empty string")
        source = doc.to_source()
        if source["ingested_at"] is None:
            source["ingested_at"] = now_iso()
        try:
            payload = json.dumps(source, ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            return PutResult(doc.id, False, error=f"not serialisable: {exc}")
        with self._lock:
            row = self._db.execute("SELECT version FROM docs WHERE id = ?", (doc.id,)).fetchone()
            if row is not None and not overwrite:
                return PutResult(doc.id, True, result="noop")
            version = 1 if row is None else row[0] + 1
            self._db.execute("BEGIN")
            try:
                self._db.execute(
                    "INSERT OR REPLACE INTO docs VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        doc.id,
                        int(doc.seq),
                        doc.fp_config,
                        doc.site,
                        doc.dup_group,
                        version,
                        payload,
                    ),
                )
                self._db.execute("DELETE FROM postings WHERE id = ?", (doc.id,))
                self._db.executemany(
                    "INSERT INTO postings VALUES (?, ?, ?)",
                    [(doc.fp_config, fp, doc.id) for fp in set(doc.fingerprints)],
                )
            except Exception:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        return PutResult(doc.id, True, result="created" if row is None else "updated")

    def get(self, doc_id: str) -> StoredDocument | None:
        with self._lock:
            row = self._db.execute(
                "SELECT source, version FROM docs WHERE id = ?", (doc_id,)
            ).fetchone()
        if row is None:
            return None
        return StoredDocument.from_source(json.loads(row[0]), (row[1], 1))

    def mget(
        self, ids: Iterable[str], with_fingerprints: bool = True, realtime: bool = True
    ) -> dict[str, StoredDocument]:
        wanted = list(dict.fromkeys(ids))
        found: dict[str, StoredDocument] = {}
        with self._lock:
            for start in range(0, len(wanted), _MAX_VARS):
                chunk = wanted[start : start + _MAX_VARS]
                marks = ",".join("?" * len(chunk))
                for doc_id, source, version in self._db.execute(
                    f"SELECT id, source, version FROM docs WHERE id IN ({marks})", chunk
                ):
                    data = json.loads(source)
                    if not with_fingerprints:
                        data["fingerprints"] = []
                    found[doc_id] = StoredDocument.from_source(data, (version, 1))
        return {i: found[i] for i in wanted if i in found}

    # -- candidates --------------------------------------------------------------------------

    def candidates(self, doc: StoredDocument, k: int = 20) -> list[Candidate]:
        if k < 1:
            raise ConfigError(f"k must be >= 1, got {k}")
        with self._lock:
            terms = candidate_terms(doc.fingerprints, self._stoplist_locked())
            if not terms:
                return []
            marks = ",".join("?" * len(terms))
            rows = self._db.execute(
                f"""
                SELECT p.id, COUNT(*) AS shared
                FROM postings AS p JOIN docs AS d ON d.id = p.id
                WHERE p.fp_config = ? AND p.fp IN ({marks}) AND p.id != ?
                GROUP BY p.id
                ORDER BY {CANDIDATE_ORDER_SQL}
                LIMIT ?
                """,
                (doc.fp_config, *terms, doc.id, k),
            ).fetchall()
        return [Candidate(doc_id, shared) for doc_id, shared in rows]

    # -- groups ------------------------------------------------------------------------------

    def update_group(self, update: GroupUpdate, version: tuple[int, int] | None = None) -> bool:
        with self._lock:
            row = self._db.execute(
                "SELECT source, version FROM docs WHERE id = ?", (update.id,)
            ).fetchone()
            if row is None:
                raise DocumentNotFound(update.id)
            if version is not None and tuple(version) != (row[1], 1):
                log.debug("version conflict writing the group of %s", update.id)
                return False
            source = json.loads(row[0])
            source.update(update.fields(now_iso()))
            self._db.execute(
                "UPDATE docs SET dup_group = ?, version = ?, source = ? WHERE id = ?",
                (update.dup_group, row[1] + 1, json.dumps(source, ensure_ascii=False), update.id),
            )
        return True

    def group_members(self, group_id: str) -> list[StoredDocument]:
        with self._lock:
            rows = self._db.execute(
                "SELECT source, version FROM docs WHERE dup_group = ? ORDER BY seq, id",
                (group_id,),
            ).fetchall()
        return [StoredDocument.from_source(json.loads(s), (v, 1)) for s, v in rows]

    # -- fingerprint frequencies and the stoplist --------------------------------------------

    def document_count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM docs").fetchone()[0])

    def fingerprint_frequencies(self, min_count: int) -> dict[str, tuple[int, int]]:
        with self._lock:
            rows = self._db.execute(
                """
                SELECT p.fp, COUNT(*), COUNT(DISTINCT d.site)
                FROM postings AS p JOIN docs AS d ON d.id = p.id
                GROUP BY p.fp HAVING COUNT(*) >= ?
                """,
                (max(1, min_count),),
            ).fetchall()
        return {fp: (count, sites) for fp, count, sites in rows}

    def set_stoplist(self, fingerprints: Iterable[str | StoplistEntry]) -> None:
        computed_at = now_iso()
        entries = [e if isinstance(e, StoplistEntry) else StoplistEntry(e) for e in fingerprints]
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.execute("DELETE FROM stoplist")
                self._db.executemany(
                    "INSERT OR REPLACE INTO stoplist VALUES (?, ?, ?, ?, ?)",
                    [(e.fingerprint, e.count, e.sites, e.reason, computed_at) for e in entries],
                )
            except Exception:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            self._stoplist_cache = None

    def stoplist(self) -> frozenset[str]:
        with self._lock:
            return self._stoplist_locked()

    def _stoplist_locked(self) -> frozenset[str]:
        if self._stoplist_cache is None:
            rows = self._db.execute("SELECT fp FROM stoplist")
            self._stoplist_cache = frozenset(fp for (fp,) in rows)
        return self._stoplist_cache

    def stoplist_entries(self) -> list[StoplistEntry]:
        with self._lock:
            rows = self._db.execute(
                "SELECT fp, count, sites, reason FROM stoplist "
                "ORDER BY COALESCE(count, 0) DESC, fp ASC"
            ).fetchall()
        return [StoplistEntry(*row) for row in rows]

    def __getstate__(self) -> dict[str, Any]:
        raise TypeError("EmbeddedStore holds an SQLite connection and cannot be pickled")


def open_backend(**options: Any) -> EmbeddedStore:
    """The store :func:`neardup.ingest.store.open_store` opens for ``embedded``."""
    return EmbeddedStore(**options)

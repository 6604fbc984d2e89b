"""The workers' side as the HTTP service sees it: a queue of accepted batches
(:class:`BatchQueue`) and of changes to pages already accepted (new versions, deletes), on the
broker (:class:`BrokerBatchQueue`: the batch staging and the change log in Redis, the workers'
Celery queue), and whether the broker answers (:func:`broker_reachable`)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from neardup.ingest.store.base import StoredDocument
from neardup.ingest.workers.batch import DEFAULT_K
from neardup.ingest.workers.changes import ChangeLog
from neardup.ingest.workers.repair import repairs_pending, wait_quiet
from neardup.ingest.workers.staging import BatchStaging
from neardup.ingest.workers.tasks import queue_repair, submit

__all__ = ["BatchQueue", "Backlogged", "BrokerBatchQueue", "broker_reachable"]


class Backlogged(Exception):
    """The workers are behind: too many accepted batches wait to be indexed (HTTP 429)."""


class BatchQueue(Protocol):
    """What the HTTP service needs of the workers' side: accept a batch of prepared pages for
    them, stage changes to pages already accepted (a new version, a delete) and queue the
    repair that applies them, tell which pages they have not decided yet, wait until batches
    are searchable and changes applied (:class:`BrokerBatchQueue`)."""

    def submit(self, pages: list[StoredDocument]) -> str: ...

    def stage_changes(self, changes: Sequence[Mapping[str, Any]]) -> None:
        """Stage ``changes`` (``{"op": "put", "id", "doc", "counted"}``,
        ``{"op": "delete", "id"}``; :meth:`neardup.ingest.workers.changes.ChangeLog.stage`), in
        order, after every batch accepted before, and queue a repair that applies them (the
        last version to arrive wins)."""
        ...

    def wait_repaired(self, budget: float) -> None:
        """Wait (at most ``budget`` seconds) until no staged change waits for a repair."""
        ...

    def repairs_pending(self) -> dict[str, int]:
        """``{"changes", "sites"}``: the work repairs have still to do on the index (changes
        staged, sites whose pages wait to be masked again); all zero: the groups are settled."""
        ...

    def pending(self, ids: Sequence[str]) -> set[str]: ...

    def pending_count(self) -> int: ...

    def pending_pages(self, ids: Sequence[str]) -> dict[str, StoredDocument]: ...

    def undecided(self, offset: int, size: int) -> tuple[int, list[StoredDocument]]: ...

    def wait_searchable(self, keys: Sequence[str] | None, budget: float) -> None: ...


class BrokerBatchQueue:
    """The pages ``index``'s batches on the broker (:mod:`neardup.ingest.workers.staging`) and
    the workers' queue (:func:`neardup.ingest.workers.tasks.submit`)."""

    def __init__(self, broker_url: str, index: str, profile: str = "web",
                 max_live: int = 8, room_wait: float = 30.0) -> None:
        self.staging = BatchStaging.from_url(broker_url, index)
        self.profile = profile
        self.max_live, self.room_wait = max_live, room_wait

    def submit(self, pages: list[StoredDocument]) -> str:
        # backpressure, as for neardup ingest: a request waits for room a while, then is refused
        if not self.staging.wait_for_room(self.max_live, self.room_wait):
            raise Backlogged(f"{self.max_live} batches are waiting for the workers")
        return submit(self.staging, pages, self.profile)

    def stage_changes(self, changes: Sequence[Mapping[str, Any]]) -> None:
        if not changes:
            return
        # durable first, then the repair's message (a lost message: the next repair applies them)
        ChangeLog(self.staging.redis, self.staging.index).stage(changes)
        queue_repair(self.staging, self.profile, DEFAULT_K, None)  # one queued at a time

    def wait_repaired(self, budget: float) -> None:
        def kick() -> None:
            queue_repair(self.staging, self.profile, DEFAULT_K, None, force=True)

        wait_quiet(self.staging.redis, self.staging.index, timeout=budget, kick=kick)

    def repairs_pending(self) -> dict[str, int]:
        return repairs_pending(self.staging.redis, self.staging.index)

    def pending(self, ids: Sequence[str]) -> set[str]:
        return self.staging.pending(ids)

    def pending_count(self) -> int:
        return self.staging.pending_count()

    def pending_pages(self, ids: Sequence[str]) -> dict[str, StoredDocument]:
        return self.staging.pending_pages(ids)

    def undecided(self, offset: int, size: int) -> tuple[int, list[StoredDocument]]:
        return self.staging.undecided(offset, size)

    def wait_searchable(self, keys: Sequence[str] | None, budget: float) -> None:
        if keys is not None and not keys:
            return
        t0 = time.monotonic()
        while time.monotonic() - t0 < budget:
            left = self.staging.live_of(keys) if keys is not None else self.staging.live_count()
            if not left:
                return
            time.sleep(0.05)


def broker_reachable(url: str, timeout: float = 2.0) -> str:
    """``"ok"`` when the broker accepts a connection within ``timeout`` seconds, else why not."""
    try:
        from kombu.connection import Connection

        connection: Any = Connection  # kombu is untyped
        with connection(url, connect_timeout=timeout, transport_options={"max_retries": 0}) as conn:
            conn.ensure_connection(
                max_retries=1, interval_start=0, interval_step=0, timeout=timeout
            )
        return "ok"
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"[:300]

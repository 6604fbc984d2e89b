"""Making the batches a worker wrote searchable (:class:`Refresher`), in the background.

A written batch stays live (:mod:`neardup.ingest.workers.staging`) until a refresh that started
after its write has finished; a worker hands its written batches to its refresher and goes on
deciding (docs/workers.md, "Deciding before indexing", step 7). The refresh is the store's
:meth:`~neardup.ingest.store.roles.EngineConnection.refresh_written`: on a search engine, the fingerprints
index is refreshed, and the pages index's own refresh is waited for (up to
:data:`OWN_REFRESH_WAIT` seconds) while more batches are on their way, which keep it coming.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from functools import partial

from neardup.ingest.workers.staging import BatchStaging

__all__ = ["OWN_REFRESH_WAIT", "Refresher"]

log = logging.getLogger(__name__)

#: Seconds a refresh waits for the pages index's own (``refresh_interval``: 1 s by default)
#: while other batches are on their way, before refreshing it itself: a written batch stays
#: live (in Redis, and in each worker's memory) until then.
OWN_REFRESH_WAIT = 3.0


class Refresher:
    """Makes the batches a worker wrote searchable, in the background: a thread that forces a
    refresh (:meth:`BatchStaging.refresh_and_prune`: one at a time across workers, none when one
    started since the write) at most every ``every`` seconds, so the batches written meanwhile
    share it and the worker goes on deciding; at once when every live batch is written (none
    is on its way to share it: the end of a run, a quiet stream). A refresh that fails (the
    engine is down) is tried again; if the process dies first, the next refresh of any worker
    prunes the batch, and ``ingest --wait`` re-sends a batch that makes no progress."""

    def __init__(self, staging: BatchStaging, refresh: Callable[[float], None],
                 every: float) -> None:
        self.staging, self.refresh, self.every = staging, refresh, every
        self._due = 0.0  # the latest write not yet known to be searchable
        self._cond = threading.Condition()
        self._last = 0.0  # when this thread last started a refresh
        threading.Thread(target=self._run, name="neardup-refresher", daemon=True).start()

    def written(self, at: float) -> None:
        """A batch was written at ``at``: have a refresh start after it."""
        with self._cond:
            self._due = max(self._due, at)
            self._cond.notify()

    def idle(self, timeout: float | None = None) -> bool:
        """Wait until every write told so far is searchable (tests; shutdown)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._due, timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._due > 0)
                due = self._due
            try:  # at most one refresh every `every` seconds, of this worker and of all
                pause = max(self._last + self.every - time.monotonic(),
                            self.staging.last_refresh() + self.every - time.time())
                coming = self.staging.undecided_count() > 0
                if pause > 0 and not coming:
                    pause = 0.0  # no other batch is on its way to share the refresh
                if pause > 0:
                    time.sleep(min(pause, self.every))
                self._last = time.monotonic()
                wait = OWN_REFRESH_WAIT if coming else 0.0
                self.staging.refresh_and_prune(partial(self.refresh, wait), due)
            except Exception:  # noqa: BLE001 - the engine or the broker is away: again later
                log.warning("could not make written batches searchable; retrying", exc_info=True)
                time.sleep(1.0)
                continue
            with self._cond:
                if self._due == due:
                    self._due = 0.0
                    self._cond.notify_all()

"""Decisions and repairs of one index take turns: many decisions at once, or one repair alone.

A batch decision (:mod:`neardup.ingest.workers.batch`) only adds pages and merges groups, so
any number run at once. A repair (:mod:`neardup.ingest.workers.repair`) takes groups apart and
decides their pages again; a decision joining a page to one of those groups meanwhile would
be lost. So a repair waits until no decision is running and holds the others back while it
runs — a readers-writer lock in Redis, beside the batches:

* ``gate:deciders`` — a sorted set of the decisions running (a token each, scored by when its
  hold expires);
* ``gate:repair`` — the repair's token while one runs or waits for the decisions to end
  (with an expiry too). A decision that finds it waits; a repair that finds another's gives
  up (its task runs again later).

A hold is a lease: short (``hold``, 30 s), renewed every third of it by a thread of the
holder while it runs, so a decision or a repair may take as long as it needs, and a worker
killed while holding the gate (SIGKILL, a lost machine) holds it back no longer than ``hold``.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from neardup.ingest.workers._redis import key_prefix, script, transient

__all__ = ["Gate", "GateBusy", "RepairRunning"]

log = logging.getLogger(__name__)

HOLD_S = 30.0  # a holder's lease, renewed while it runs


class GateBusy(Exception):
    """Another repair holds the gate, or the decisions did not end in time."""


class RepairRunning(GateBusy):
    """Another repair holds the gate (it looks for work left when it ends)."""


class Gate:
    """The decisions-or-repair gate of one index (see the module doc)."""

    def __init__(self, client: Any, index: str, hold: float = HOLD_S) -> None:
        self.redis = client
        p = key_prefix(index)
        self.k_deciders, self.k_repair = p + "gate:deciders", p + "gate:repair"
        self.hold = hold  # seconds a holder is trusted to be alive without renewing
        self._enter = script(client, "gate_enter.lua")
        self._renew = script(client, "gate_renew.lua")

    @contextmanager
    def _leased(self, token: str, role: str) -> Iterator[None]:
        """Renew the hold of ``token`` (``role``: ``decision`` or ``repair``) every third of
        ``hold`` until the block ends."""
        stop = threading.Event()

        def renew() -> None:
            while not stop.wait(self.hold / 3):
                try:
                    self._renew(keys=[self.k_repair, self.k_deciders],
                                args=[token, repr(time.time() + self.hold),
                                      int(self.hold * 1000), role])
                except Exception as exc:  # the broker is away: the next turn tries again
                    log.debug("could not renew the gate's %s hold: %r", role, exc)

        thread = threading.Thread(target=renew, name=f"gate-{role}-lease", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join(timeout=5)

    @transient
    def _try_enter(self, token: str) -> bool:
        return bool(self._enter(keys=[self.k_repair, self.k_deciders],
                                args=[token, repr(time.time() + self.hold)]))

    @contextmanager
    def deciding(self, budget: float = 600.0) -> Iterator[None]:
        """Hold the gate for a decision: wait while a repair holds it (at most ``budget``
        seconds, then :class:`GateBusy`)."""
        token = uuid.uuid4().hex
        deadline = time.monotonic() + budget
        delay = 0.01
        while not self._try_enter(token):
            if time.monotonic() > deadline:
                raise GateBusy("a repair holds the index")
            time.sleep(delay)
            delay = min(delay * 1.5, 0.2)
        try:
            with self._leased(token, "decision"):
                yield
        finally:
            transient(self.redis.zrem)(self.k_deciders, token)

    @contextmanager
    def repairing(self, budget: float = 120.0) -> Iterator[None]:
        """Hold the gate alone for a repair: :class:`GateBusy` when another repair holds it,
        or when the decisions running do not end within ``budget`` seconds."""
        token = uuid.uuid4().hex
        if not transient(self.redis.set)(self.k_repair, token, nx=True,
                                          px=int(self.hold * 1000)):
            raise RepairRunning("another repair runs")
        try:
            with self._leased(token, "repair"):
                deadline = time.monotonic() + budget
                delay = 0.01
                while self._deciders():
                    if time.monotonic() > deadline:
                        raise GateBusy("decisions still running")
                    time.sleep(delay)
                    delay = min(delay * 1.5, 0.2)
                yield
        finally:
            self._leave_repair(token)

    @transient
    def _deciders(self) -> int:
        self.redis.zremrangebyscore(self.k_deciders, "-inf", repr(time.time()))
        return int(self.redis.zcard(self.k_deciders))

    @transient
    def _leave_repair(self, token: str) -> None:
        held = self.redis.get(self.k_repair)
        if held is not None and (held.decode() if isinstance(held, bytes) else held) == token:
            self.redis.delete(self.k_repair)

    @transient
    def repair_running(self) -> bool:
        return bool(self.redis.exists(self.k_repair))

    @transient
    def clear(self) -> None:
        self.redis.delete(self.k_deciders, self.k_repair)

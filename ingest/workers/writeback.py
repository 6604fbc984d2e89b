"""Rewriting indexed pages whose group moved after they were written.

A page is indexed once, carrying its group (:mod:`neardup.ingest.workers.batch`); what can still
change is the group: a later join merges it into an earlier one. Two cases, both rewritten by
id as partial updates (no refresh, no search of the index):

* :func:`rewrite_merged` — the members of the groups *this* worker merged away;
* :func:`settle` — the pages this worker just wrote whose group another worker merged away
  between reading the roots and the write.

Every write first notes the groups it writes (:meth:`RedisGroupForest.note_members`), so a merger
finds every member written before its merge, and a writer reads the roots again after its
write (docs/workers.md, "Why every written group is right").
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from neardup.ingest.store.roles import EngineWrites
from neardup.ingest.workers.forest import RedisGroupForest

__all__ = ["rewrite_merged", "settle"]

log = logging.getLogger(__name__)


def rewrite_merged(
    store: EngineWrites, forest: RedisGroupForest, merged: Sequence[tuple[str, str]]
) -> dict[str, str]:
    """Point the indexed members of groups merged away at their root now (``merged``: the
    union's, which hands on the merges a failed decision left unwritten). Only group ids that
    pages were indexed with can have members (a page of this batch that joined an older group
    was not written yet); their members are the pages noted before each write
    (:meth:`RedisGroupForest.note_members`: a page noted after this read is settled by its writer,
    who reads the roots after writing), each rewritten to its current root by id — no
    refresh or search of the index. Once written, the merges are done
    (:meth:`RedisGroupForest.merged_done`); a write that fails leaves them to the next union."""
    names = sorted({loser for loser, _ in merged})
    losers = forest.written_roots(names)
    out: dict[str, str] = {}
    if losers:
        out = forest.roots(forest.members_written(losers))
        _write_groups(store, forest, out)
        forest.forget_members(losers)
    forest.merged_done(names)
    return out


def settle(
    store: EngineWrites, forest: RedisGroupForest, written: Mapping[str, str], rounds: int = 20
) -> None:
    """Re-read the roots of the pages just written and rewrite those whose group moved meanwhile,
    until none did (a merge after this read is rewritten by whoever made it)."""
    pending = dict(written)
    for _ in range(rounds):
        if not pending:
            return
        now = forest.roots(sorted(pending))
        moved = {i: r for i, r in now.items() if r != pending[i]}
        if not moved:
            return
        _write_groups(store, forest, moved)
        pending = moved
    log.warning("groups of %d pages still moving after %d rounds", len(pending), rounds)


def _write_groups(store: EngineWrites, forest: RedisGroupForest, groups: Mapping[str, str]) -> None:
    if groups:
        forest.note_members(groups)
        store.set_groups(groups)

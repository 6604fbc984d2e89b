"""The verification workers: Celery tasks that decide accepted batches and index each page once,
with its group.

The pipeline's side of steps 2-3 (docs/workers.md): the algorithm is :mod:`neardup.verifier`
(strings and configs in, verdicts out); these modules talk to Redis and the store around it.
One concept a module:

- :mod:`~neardup.ingest.workers.app` — the Celery application
  (``celery -A neardup.ingest.workers.app worker``), configured from the environment;
- :mod:`~neardup.ingest.workers.tasks` — the task declarations: queueing a batch, the
  ``neardup.decide_batch`` task, retries and dead-lettering;
- :mod:`~neardup.ingest.workers.batch` — deciding one batch: candidates, verify, join, index
  each page once;
- :mod:`~neardup.ingest.workers.live` — the live index: the pages accepted but not yet
  searchable, as a worker holds them;
- :mod:`~neardup.ingest.workers.writeback` — rewriting indexed pages whose group moved;
- :mod:`~neardup.ingest.workers.refresher` — making written batches searchable;
- :mod:`~neardup.ingest.workers.staging` — the accepted batches staged in Redis;
- :mod:`~neardup.ingest.workers.forest` — the group forest in Redis (its Lua scripts, like
  the staging's, are ``.lua`` files beside the modules);
- :mod:`~neardup.ingest.workers.timings` — each batch's phase timings.

Importing this package loads none of them (``celery``, ``redis`` load with the module that
needs them).
"""

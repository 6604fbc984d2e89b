"""The root of every error neardup raises on purpose, and the whole tree.

:class:`NeardupError` sits here, in the top-level package that every layer shares (importing it
loads nothing else: ``neardup/__init__.py`` imports no layer), so the verifier, the bottom
layer, derives its errors from it without importing ``ingest``, and ``except NeardupError``
catches them all. Each layer keeps its branch in its own ``errors`` module.

Configuration errors (a bad parameter: fix the call) are kept apart from per-document runtime
errors (a bad page: count it, report it against its id, carry on)::

    NeardupError                       this module
    ├── ConfigError(ValueError)        invalid configuration or argument
    ├── DocumentError                  one document could not be processed; carries doc_id
    │   ├── InvalidRecord              the record is not readable: not UTF-8, not JSON, not an
    │   │                              object, nested too deep (neardup.ingest.records)
    │   ├── InvalidField               a field breaks a rule: a bad id, a text that is not a
    │   │                              string, a url over its limit (neardup.ingest.records)
    │   ├── DuplicateId                an id seen earlier in the same input
    │   ├── ExtractError               HTML/bytes could not be turned into text
    │   │   ├── DocumentTooLarge       input over the size limit
    │   │   └── ExtractTimeout         extraction exceeded the per-document deadline
    │   └── EmptyDocument              no text at all (nothing to fingerprint or verify)
    ├── VerifierError                  the verifier (neardup.verifier.errors)
    │   ├── VerifierConfigError(ValueError)   a bad VerifyConfig value
    │   ├── VerifierInputError(ValueError)    a text the verifier cannot take
    │   │   └── InputTooLargeError            longer than VerifyConfig.max_chars
    │   └── ImplementationUnavailable(ImportError)   NEARDUP_IMPL cannot be met
    ├── StoreError                     the store (neardup.ingest.store.errors): StoreUnavailable,
    │                                  DocumentNotFound(KeyError), IndexNotFound, Unsupported
    ├── DashboardsError                the saved-objects import (neardup.ingest.dashboards)
    ├── WorkerDied                     a worker started for the run exited before it ended
    │                                  (neardup.ingest.commands.started_workers)
    ├── DatasetUnavailable             a dataset's source data (neardup.evaluation.datasets)
    └── BaselineError                  a baseline method (neardup.evaluation.baselines.errors):
                                       BaselineUnavailable, NotFittedError

"""

from __future__ import annotations

__all__ = ["NeardupError"]


class NeardupError(Exception):
    """Base class of every error raised on purpose by neardup (the verifier, ``ingest``,
    ``evaluation``): ``except NeardupError`` catches them all, and nothing else."""

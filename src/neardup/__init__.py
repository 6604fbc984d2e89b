"""neardup: near-duplicate web page detection (Huang, Wang & Li, 2007) for OpenSearch ingest.

The packages beneath, in the one direction their imports go:

* :mod:`neardup.verifier` — deciding: filter skeleton, Myers LCS, trustable LCS, the verdict and
  the pure grouping rule; strings and configs in, verdicts out.
* :mod:`neardup.ingest` — getting pages in and groups out: input, extraction, fingerprints, the
  store, the workers, the HTTP service, the ``neardup`` command.
* :mod:`neardup.evaluation` — measuring: ``neardup eval``, the baselines, the datasets.
* :mod:`neardup.mappings` — index templates and dashboards, as data.

For Python programs, the front door (:mod:`neardup.api`): :func:`compare` two pages,
:func:`dedup` an iterable of pages (:class:`Dedup`, its results), :func:`submit` pages to a running pipeline, read a page's
group with :func:`group_of`, and read the pages of a WARC or WET file with :func:`read_warc`.
They load on first use, so ``import neardup.verifier`` loads the verifier alone.
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from neardup.api import Dedup, Grouped, compare, dedup, group_of, read_warc, submit

__all__ = ["Dedup", "Grouped", "compare", "dedup", "group_of", "read_warc", "submit"]

# The library's one handler: neardup's modules log to `neardup.*` loggers, which the program
# configures (the command line does); unconfigured, nothing is printed.
logging.getLogger(__name__).addHandler(logging.NullHandler())


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module("neardup.api"), name)
    raise AttributeError(f"module 'neardup' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)

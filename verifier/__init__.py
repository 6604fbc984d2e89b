"""Steps 2 and 3 of the method: filter skeleton, Myers O(ND) LCS, TLCS and the verdict.

The pure algorithm: texts and a :class:`VerifyConfig` in, a :class:`Verdict` out. Nothing here
imports the rest of the project (pages, extraction, the store: :mod:`neardup.ingest`; a pair of
pages in, a verdict out: :mod:`neardup.ingest.pairs`).
"""

from neardup.verifier.compare import compare
from neardup.verifier.config import VerifyConfig
from neardup.verifier.verdict import Verdict

__all__ = ["Verdict", "VerifyConfig", "compare"]

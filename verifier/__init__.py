"""Steps 2 and 3 of the method: filter skeleton, Myers O(ND) LCS, TLCS and the verdict."""

from neardup.verifier.compare import Verdict, compare, compare_documents
from neardup.verifier.config import VerifyConfig

__all__ = ["Verdict", "VerifyConfig", "compare", "compare_documents"]

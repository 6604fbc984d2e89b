"""The verifier's errors: its branch of the tree rooted at :class:`neardup.errors.NeardupError`
(the one module outside ``verifier/`` the verifier imports; it loads nothing else). Steps 2 and
3 (skeleton, LCS, TLCS)::

    NeardupError                         every error neardup raises on purpose
    └── VerifierError                    every error this package raises on purpose
        ├── VerifierConfigError          a bad VerifyConfig value (also a ValueError)
        ├── VerifierInputError           a text the verifier cannot take (also a ValueError)
        │   └── InputTooLargeError       longer than VerifyConfig.max_chars
        └── ImplementationUnavailable    NEARDUP_IMPL names no implementation, or =cython
                                         but the extension is not built (also an ImportError)

Configuration errors are raised when a config is created; input errors are per pair and carry
no state, so a caller (CLI, worker) reports them against the document and goes on.
"""

from __future__ import annotations

from neardup.errors import NeardupError

__all__ = [
    "ImplementationUnavailable",
    "InputTooLargeError",
    "NeardupError",
    "VerifierConfigError",
    "VerifierError",
    "VerifierInputError",
]


class VerifierError(NeardupError):
    """Base of every error the verifier raises on purpose."""


class VerifierConfigError(VerifierError, ValueError):
    """A :class:`~neardup.verifier.config.VerifyConfig` parameter is out of range."""


class VerifierInputError(VerifierError, ValueError):
    """A text given to the verifier is not usable (wrong type, too large)."""


class InputTooLargeError(VerifierInputError):
    """A text is longer than ``VerifyConfig.max_chars`` code points."""


class ImplementationUnavailable(VerifierError, ImportError):
    """The implementation ``NEARDUP_IMPL`` asks for cannot be loaded (see
    :mod:`neardup.verifier.implementation`)."""

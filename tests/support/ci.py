"""What is required where: under ``CI=true`` (``1``, ``yes``) everything a test needs — a
service, a data set, a tool, a compiled extension — must be there, and its absence fails the
test; elsewhere (a laptop offline, a pure-Python install) the test is skipped with the reason.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import NoReturn

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def unavailable(reason: str) -> NoReturn:
    """Skip the test for ``reason``; under CI, fail it."""
    if IN_CI:
        pytest.fail(f"required under CI: {reason}", pytrace=False)
    pytest.skip(reason)


def require_compiled(name: str) -> ModuleType:
    """The compiled extension module ``name`` (a Cython twin of a pure-Python reference), or
    :func:`unavailable` when it is not built: a twin must never go untested under CI.

    Tests mark themselves ``@pytest.mark.compiled("neardup.verifier._lcs")`` and
    ``tests/conftest.py`` calls this before they run; a test that needs the module itself
    calls it directly."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        unavailable(f"{name} is not built ({exc})")

"""Every property runs through both implementations (reference and compiled)."""

from __future__ import annotations

from types import ModuleType

import pytest

from neardup.verifier import _lcs_py

try:
    from neardup.verifier import _lcs as _lcs_c
except ImportError:  # pragma: no cover - the build is part of set-up
    _lcs_c = None

IMPLS = [
    pytest.param(_lcs_py, id="python"),
    pytest.param(
        _lcs_c,
        id="cython",
        marks=pytest.mark.compiled("neardup.verifier._lcs"),
    ),
]


@pytest.fixture(params=IMPLS, scope="session")
def impl(request: pytest.FixtureRequest) -> ModuleType:
    return request.param


"""Which twin runs: a compiled extension or its pure-Python reference (``NEARDUP_IMPL``).

Every compiled module ``_x`` of neardup has a pure-Python twin ``_x_py`` that gives the same
results and is its specification, and a front ``x`` that binds one of them:
``neardup.verifier._lcs`` (:mod:`neardup.verifier.lcs`), ``neardup.verifier._words``
(:mod:`neardup.verifier.words`), ``neardup.ingest._fingerprint``
(:mod:`neardup.ingest.fingerprint`), ``neardup.ingest._chrome`` (the line keys and hashes of
:mod:`neardup.ingest.chrome`), ``neardup.ingest._sketch`` (a key's cells,
:mod:`neardup.ingest.sketch`), ``neardup.ingest._records`` (the character checks of
:mod:`neardup.ingest.records`) and ``neardup.ingest._candidates`` (the candidate table of
``neardup dedup``, :mod:`neardup.ingest.candidates`). Each front binds its twin through :func:`select`,
once, when it is imported; one setting chooses for all of them, as ``RAPIDFUZZ_IMPLEMENTATION``
does for rapidfuzz's ``_cpp`` and ``_py`` modules:

==================  ==============================================================
``NEARDUP_IMPL``    the module bound
==================  ==============================================================
unset or empty      the compiled one when it is built, else the reference
``python``          the reference
``cython``          the compiled one; when it is not built,
                    :class:`~neardup.verifier.errors.ImplementationUnavailable` (what
                    production should set: a silent 100x slowdown is worse than a
                    failed start)
==================  ==============================================================

Case and surrounding blanks do not count; any other value is an
:class:`~neardup.verifier.errors.ImplementationUnavailable` naming the variable.

The verifier takes no :class:`neardup.ingest.settings.Settings` (it imports nothing of the
project outside ``verifier/``), so this module reads that one variable from the environment
itself: the only place besides ``ingest/settings.py`` that does (``tests/ingest/
test_settings.py`` allows exactly this module). ``Settings.impl`` checks the same variable
where settings are built; the verifier itself fails at import, naming the variable, since its
modules bind their twins then (``neardup`` loads the verifier with the error tree, so a bad
value stops it at start).
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any, overload

from neardup.verifier.errors import ImplementationUnavailable

__all__ = ["CHOICES", "VARIABLE", "bind", "choice", "select"]

VARIABLE = "NEARDUP_IMPL"
CHOICES = ("", "python", "cython")


def choice(value: str | None = None) -> str:
    """The implementation asked for: ``value`` (default: ``$NEARDUP_IMPL``), normalised to
    one of :data:`CHOICES` (``""``: the compiled one when built).

    >>> choice(" Python "), choice("")
    ('python', '')
    >>> choice("fortran")
    Traceback (most recent call last):
    ...
    neardup.verifier.errors.ImplementationUnavailable: NEARDUP_IMPL='fortran': expected python or cython
    """
    raw = os.environ.get(VARIABLE, "") if value is None else value
    normalised = raw.strip().lower()
    if normalised not in CHOICES:
        raise ImplementationUnavailable(f"{VARIABLE}={raw!r}: expected python or cython")
    return normalised


@overload
def select(compiled: str, reference: str, *, impl: str | None = None) -> ModuleType: ...
@overload
def select(compiled: str, reference: None, *, impl: str | None = None) -> ModuleType | None: ...
def select(compiled: str, reference: str | None, *, impl: str | None = None) -> ModuleType | None:
    """The module to use of the twins named ``compiled`` and ``reference`` (full module names),
    as ``impl`` (default: ``$NEARDUP_IMPL``, see :func:`choice`) asks.

    ``reference`` names a module with the compiled one's API (it may be the caller itself,
    ``__name__``, when its own functions are the reference). None says the twin has no
    reference module of that API: the caller's own pure-Python code stands in for it, and
    None is returned where the reference is chosen.

    The reference is imported only when chosen, so a compiled run does not pay for loading
    the specification.

    >>> select("neardup.verifier._lcs", "neardup.verifier._lcs_py", impl="python").__name__
    'neardup.verifier._lcs_py'
    >>> select("neardup.verifier._nothing", None, impl="") is None
    True
    """
    chosen = choice(impl)
    if chosen != "python":
        try:
            return importlib.import_module(compiled)
        except ImportError as exc:
            if exc.name != compiled:
                raise  # the extension is there but something it imports is broken
            if chosen == "cython":
                raise ImplementationUnavailable(
                    f"{VARIABLE}=cython but the extension {compiled} is not built; "
                    "run `pip install -e .`"
                ) from None
    return None if reference is None else importlib.import_module(reference)


def bind(front: dict[str, Any], twin: ModuleType) -> ModuleType:
    """Complete a front with the API of ``twin`` (the module :func:`select` chose): every name
    of the front's ``__all__`` that the front does not define itself is taken from ``twin``.

    A compiled module ``_x.pyx`` and its reference ``_x_py.py`` are reached through one front,
    ``x.py``, which lists in its ``__all__`` the twins' API and what it adds, imports the API
    from the reference under ``TYPE_CHECKING`` (type checkers and editors read the
    specification's signatures and docstrings) and ends with ``bind(globals(), twin)``. A name
    the twin lacks is an AttributeError at import, never a silent gap.

    >>> front = {"__all__": ["IMPLEMENTATION", "edit_script"], "edit_script": print}
    >>> bind(front, select("neardup.verifier._lcs", "neardup.verifier._lcs_py", impl="python"))
    <module 'neardup.verifier._lcs_py' ...>
    >>> front["IMPLEMENTATION"], front["edit_script"] is print
    ('python', True)
    """
    for name in front["__all__"]:
        if name not in front:
            front[name] = getattr(twin, name)
    return twin

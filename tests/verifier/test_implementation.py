"""neardup.verifier.implementation: one setting (``NEARDUP_IMPL``) and one helper pick every
compiled twin or its pure-Python reference; and the verifier stands alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.ci import require_compiled

from neardup.verifier import _lcs_py
from neardup.verifier.errors import ImplementationUnavailable, NeardupError, VerifierError
from neardup.verifier.implementation import bind, choice, select

try:
    from neardup.verifier import _lcs as _lcs_c
except ImportError:  # pragma: no cover - the build is part of set-up
    _lcs_c = None

COMPILED, REFERENCE = "neardup.verifier._lcs", "neardup.verifier._lcs_py"
MISSING = "neardup.verifier._not_built"


def test_python_is_the_reference_whatever_is_built() -> None:
    assert select(COMPILED, REFERENCE, impl="python") is _lcs_py
    assert select(MISSING, REFERENCE, impl="python") is _lcs_py
    assert select(COMPILED, None, impl="python") is None  # the caller's own code stands in


@pytest.mark.compiled("neardup.verifier._lcs")
@pytest.mark.parametrize("impl", ["cython", "", " CYTHON "])
def test_cython_and_unset_take_the_compiled_module_when_built(impl: str) -> None:
    assert select(COMPILED, REFERENCE, impl=impl) is _lcs_c
    assert select(COMPILED, None, impl=impl) is _lcs_c


def test_unset_falls_back_to_the_reference_when_not_built() -> None:
    assert select(MISSING, REFERENCE, impl="") is _lcs_py
    assert select(MISSING, None, impl="") is None


def test_forcing_a_missing_extension_is_an_error() -> None:
    with pytest.raises(ImplementationUnavailable, match=f"NEARDUP_IMPL=cython.*{MISSING}"):
        select(MISSING, REFERENCE, impl="cython")
    with pytest.raises(ImplementationUnavailable, match="NEARDUP_IMPL='numpy'"):
        select(COMPILED, REFERENCE, impl="numpy")
    # one error tree: an ImportError and a ValueError-free VerifierError under NeardupError
    assert issubclass(ImplementationUnavailable, ImportError)
    assert issubclass(ImplementationUnavailable, VerifierError)
    assert issubclass(VerifierError, NeardupError)


def test_a_broken_extension_is_not_taken_for_a_missing_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An ImportError raised while the compiled module loads (something it imports is
    # missing) is a broken install, not an unbuilt twin: it propagates, no silent fallback.
    (tmp_path / "nd_broken_twin.py").write_text("import nd_no_such_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImportError) as err:
        select("nd_broken_twin", REFERENCE, impl="")
    assert err.value.name == "nd_no_such_dependency"
    assert not isinstance(err.value, ImplementationUnavailable)


def test_the_choice_reads_neardup_impl(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEARDUP_IMPL", " Python ")
    assert choice() == "python" and select(COMPILED, REFERENCE) is _lcs_py
    monkeypatch.delenv("NEARDUP_IMPL")
    assert choice() == ""
    assert choice("cython") == "cython"  # an explicit value wins over the environment


def test_bind_completes_a_front_with_its_twins_api_and_nothing_else() -> None:
    own = object()
    front = {"__all__": ["IMPLEMENTATION", "verify", "edit_script"], "edit_script": own}
    assert bind(front, _lcs_py) is _lcs_py
    assert front["IMPLEMENTATION"] == "python" and front["verify"] is _lcs_py.verify
    assert front["edit_script"] is own  # what the front defines stays its own
    assert "normalize" not in front  # only what the front exports
    with pytest.raises(AttributeError, match="no_such_function"):
        bind({"__all__": ["no_such_function"]}, _lcs_py)  # a gap in a twin stops the import


PROBE = """
import json, sys
import neardup.verifier.words as words, neardup.verifier.lcs as lcs
from neardup.verifier import Verdict, VerifyConfig, compare
print(json.dumps({
    "lcs": lcs.IMPLEMENTATION,
    "words": words.IMPLEMENTATION,
    "modules": sorted(m for m in sys.modules if m.startswith("neardup")),
    "similar": compare("a b c d e f g h", "a b c d e f g h").similar,
}))
"""


@pytest.mark.parametrize("impl", ["python", "cython"])
def test_every_verifier_twin_follows_the_one_setting(impl: str) -> None:
    if impl == "cython":
        require_compiled("neardup.verifier._lcs")
    env = {**os.environ, "NEARDUP_IMPL": impl}
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["lcs"] == got["words"] == impl and got["similar"] is True
    # each front (x.py) loads the twin chosen, _x.pyx or _x_py.py, never the other one
    twins = sorted(m for m in got["modules"] if m.rpartition(".")[2] in
                   ("_lcs", "_lcs_py", "_words", "_words_py"))
    loaded = ["_lcs_py", "_words_py"] if impl == "python" else ["_lcs", "_words"]
    assert twins == [f"neardup.verifier.{name}" for name in loaded]
    # the verifier stands alone: strings and configs in, verdicts out, nothing of ingest loaded
    # (the root of the error tree aside: neardup.errors, which imports nothing)
    alone = ("neardup", "neardup.errors")
    assert [m for m in got["modules"] if m not in alone and not m.startswith("neardup.verifier")] == []

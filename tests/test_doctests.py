"""The examples in the docstrings of neardup's modules run as written (``doctest``): an
example that drifted from the code fails here instead of misleading a reader."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from collections.abc import Iterator

import pytest

PACKAGES = ("neardup", "neardup.ingest", "neardup.verifier", "neardup.evaluation")


def _modules_with_examples() -> Iterator[str]:
    finder = doctest.DocTestFinder()
    for package in PACKAGES:
        root = importlib.import_module(package)
        names = [package] + [m.name for m in pkgutil.walk_packages(root.__path__, f"{package}.")]
        for name in names:
            module = importlib.import_module(name)
            if any(t.examples for t in finder.find(module)):
                yield name


MODULES = sorted(_modules_with_examples())


def test_there_are_examples_to_run() -> None:
    assert len(MODULES) >= 10


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, result

"""neardup.ingest.extract.markup: reStructuredText (Sphinx sources) and Markdown."""

from __future__ import annotations

import pytest

from neardup.ingest.errors import DocumentTooLarge, EmptyDocument, ExtractError
from neardup.ingest.extract import document_text, rst_text

SPHINX_RST = """\
:mod:`os.path` --- Common pathname manipulations
================================================

.. module:: os.path
   :synopsis: Operations on pathnames.

.. index:: single: path; operations

This module implements functions on pathnames; see :func:`open` and
:class:`~os.PathLike`, or :ref:`the guide <path-guide>` and :c:func:`!PyOS_FSPath`.

.. function:: join(path, *paths)
   :noindex:

   Join one or more path segments *intelligently*.

   .. versionchanged:: 3.6
      Accepts a :term:`path-like object`.

.. code-block:: python3
   :linenos:

   >>> os.path.join("a", "b")

.. toctree::
   :maxdepth: 2

   intro
"""


def test_rst_sphinx_roles_and_directives() -> None:
    text = rst_text(SPHINX_RST)
    assert text.split("\n\n") == [
        "os.path --- Common pathname manipulations",
        "This module implements functions on pathnames; see open and\n"
        "PathLike, or the guide and PyOS_FSPath.",
        "join(path, *paths)",
        "Join one or more path segments intelligently.",
        "Changed in version 3.6: Accepts a path-like object.",
        '>>> os.path.join("a", "b")',
    ]


def test_rst_is_silent_and_permissive(capsys: pytest.CaptureFixture[str]) -> None:
    source = (
        "Broken `link`_, |undefined| substitution, :unknown:`role`, **unclosed\n\n"
        ".. unknown-directive:: arg\n   :opt: 1\n\n   Body text.\n\n"
        ".. raw:: html\n\n   <b>raw</b>\n\n.. include:: /etc/passwd\n\n"
        "Title\n===\n\n* list\n\n  - nested\n\n"
    )
    text = rst_text(source)
    assert "Body text." in text and "arg" in text and "role" in text
    assert "<b>" not in text and "root:" not in text and ":opt:" not in text
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""
    # the source of a construct docutils cannot parse stays; file-wide metadata goes (Sphinx)
    assert rst_text("+---+---+\n| a | b |\n+---+\n\nAfter.") == (
        "+---+---+\n| a | b |\n+---+\n\nAfter."
    )
    assert rst_text(":orphan:\n:tocdepth: 2\n\nBody.") == "Body."


def test_rst_errors_are_per_document(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ExtractError, match="'rst' must be a string") as err:
        document_text({"id": "r1", "rst": 42})
    assert err.value.doc_id == "r1"
    with pytest.raises(EmptyDocument):
        document_text({"id": "r2", "rst": ".. index:: only\n"})
    with pytest.raises(DocumentTooLarge):
        document_text({"id": "r3", "rst": "x" * 100}, max_bytes=50)

    def broken(*args: object, **kwargs: object) -> None:
        raise RecursionError("too deep")

    import docutils.core

    monkeypatch.setattr(docutils.core, "publish_doctree", broken)
    with pytest.raises(ExtractError, match="reStructuredText") as err:
        document_text({"id": "r4", "rst": "text"})
    assert err.value.doc_id == "r4"


def test_rst_does_not_change_other_docutils_users() -> None:
    from docutils.core import publish_doctree

    rst_text("warm up")
    tree = publish_doctree(
        ".. unknown-directive:: x\n",
        settings_overrides={"report_level": 5, "_disable_config": True},
    )
    assert "Unknown directive type" in tree.astext()

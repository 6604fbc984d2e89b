"""Errors raised by :mod:`neardup.evaluation.baselines`.

Bad parameters raise :class:`neardup.ingest.errors.ConfigError` like everywhere else in neardup; the
errors below are about the state a baseline runs in::

    NeardupError
    └── BaselineError
        ├── BaselineUnavailable    a resource the method needs is absent (e.g. WordNet data);
        │                          the message says how to install it
        └── NotFittedError         the method needs corpus statistics: call fit() first
"""

from __future__ import annotations

from neardup.ingest.errors import NeardupError

__all__ = ["BaselineError", "BaselineUnavailable", "NotFittedError"]


class BaselineError(NeardupError):
    """Base class of the errors raised by a baseline method."""


class BaselineUnavailable(BaselineError):
    """The method cannot run here: a data file or package it needs is missing."""


class NotFittedError(BaselineError):
    """``signature`` was called before ``fit`` on a method that needs corpus statistics."""

    def __init__(self, name: str) -> None:
        super().__init__(f"baseline {name!r} needs corpus statistics: call fit(texts) first")
        self.name = name

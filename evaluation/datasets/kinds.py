"""The kinds of a dataset's items: what made a near-duplicate pair (positive) or not (negative)."""

from __future__ import annotations

__all__ = ["NEGATIVE_KINDS", "POSITIVE_KINDS", "SAME_TEMPLATE_KINDS"]

#: negative kinds whose two pages share one site template (the "same-template negatives")
SAME_TEMPLATE_KINDS = frozenset({"same-template", "product"})
POSITIVE_KINDS = (
    "template",
    "para-edit",
    "key-para",
    "small-edits",
    "reorder",
    "mixed",
    "product-mirror",
)
NEGATIVE_KINDS = ("same-template", "product", "unrelated")

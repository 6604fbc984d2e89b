"""A documentation site of template siblings: pages filled from one template for different
subjects ("Fill with FG Color", "Fill with BG Color", ...), each also in a British-English
variant (its twin: the only true duplicate). Every page ends with a navigation line naming the
previous and the next page, as generated manuals do, so siblings mention each other once.
"""

from __future__ import annotations

from typing import Any

# (file name, title, the subject's description): siblings of one template, in manual order.
SUBJECTS = [
    ("fill-fg", "Fill with FG Color", "foreground"),
    ("fill-bg", "Fill with BG Color", "background"),
    ("fill-pattern", "Fill with Pattern", "pattern"),
    ("flip-horizontal", "Flip Horizontally", "horizontal"),
    ("flip-vertical", "Flip Vertically", "vertical"),
    ("rotate-cw", "Rotate Clockwise", "clockwise"),
    ("rotate-ccw", "Rotate Counterclockwise", "counterclockwise"),
]

_TEMPLATE = """{n}. {title}

{n}. {title}

The {title} command changes the active layer of the image: {title} uses the {what} setting
of the toolbox, and the color of the layer is kept as it was. If some areas of the image are
only partially selected, for example as a result of feathering the selection, they are changed
in proportion to how much they are selected. The command can be undone like any other.

Please note that if the image has no selection, the whole active layer is changed by the
{title} command, and the layer boundary is not modified.

{n}.1. Activate the Command

You can access this command from the image menubar through Layer, {title}. It has no default
keyboard shortcut; you can organize one in the keyboard shortcuts dialog.

{prev}    {next}
"""


def _british(text: str) -> str:
    return text.replace("color", "colour").replace("Color", "Colour").replace(
        "organize", "organise").replace("dialog", "dialogue")


def sibling_pages(site: str | None = "docs.example") -> list[dict[str, Any]]:
    """Every subject's page in ``en`` and ``en_GB``; ``site=None``: each page its own site
    (its URL's host differs per page)."""
    pages = []
    for i, (name, title, what) in enumerate(SUBJECTS):
        prev = f"{i}. {SUBJECTS[i - 1][1]}" if i else "Contents"
        nxt = f"{i + 2}. {SUBJECTS[i + 1][1]}" if i + 1 < len(SUBJECTS) else "Index"
        text = _TEMPLATE.format(n=i + 1, title=title, what=what, prev=prev, next=nxt)
        for variant, body in (("en", text), ("en_GB", _british(text))):
            page: dict[str, Any] = {"id": f"{variant}/{name}", "text": body}
            if site is not None:
                page["site"] = site
            else:
                page["url"] = f"https://{variant}-{name}.example/{name}.html"
            pages.append(page)
    return pages


def twins(pages: list[dict[str, Any]]) -> set[frozenset[str]]:
    """The true partition: each page with its other-variant twin."""
    by: dict[str, set[str]] = {}
    for p in pages:
        by.setdefault(p["id"].split("/", 1)[1], set()).add(p["id"])
    return {frozenset(m) for m in by.values()}

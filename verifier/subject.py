"""Template siblings: two pages of one site filled from one template for different subjects.

A documentation set, a shop or a directory generates many pages from one template: "Fill with
FG Color" and "Fill with BG Color", "Flip Horizontally" and "Flip Vertically", the "Edit" and
the "File" menu. Their texts share nearly every sentence and the content rule calls them
similar; a reader calls them different pages, because they are about different things. What a
page is about shows at its head and all through it: its name opens the page and recurs in the
body ("The Fill with BG Color command fills ... the Background part ... Edit → Fill with BG
Color").

:func:`subject_words` finds a page's **subject words** that the other page lacks: a word among
the first :data:`HEAD_WORDS` words of the page that occurs at least :data:`MIN_REPEATS` times
in it and at most a quarter as often in the other page (a generated manual links the previous
and the next page by title, so a sibling names the other's subject once), counting the words
within one letter (4 or 5 letters) or two (longer) as the same word: a spelling variant,
"colour" and "color", or a typo. :func:`subject_differs` is true when either page has one.

The rule looks at Latin-script words of two letters or more (not numbers, not CJK characters:
a name in a Chinese page is several characters, each a common word of its own), and applies to
pages of **one site** only (``neardup.ingest.pairs``): the same article under two sites' names
(a syndicated story, a mirror) differs in the site's name at the head and is a duplicate. On the
human-judged Webis pages, which carry no site, the rule would have split 5 judged-positive pairs
of 98 (template pages the judges called similar, and one story under two newspapers' names)
and 3 judged-negative pairs of 7 (measured with "lacks" as "has none"); on the GIMP manual it
takes group precision from 0.84 to 0.98-0.99 and parts none of the 685 pairs of a page and its
British-English twin (docs/quality.md, "Template siblings").
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

import regex

__all__ = ["HEAD_WORDS", "MIN_REPEATS", "subject_differs", "subject_words"]

# Words that can name a subject: letters only (any script but CJK), two or more.
_LETTER = r"[^\W\d_\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]"
_WORD = regex.compile(_LETTER + "{2,}")

HEAD_WORDS = 8
"""How many words open a page: where its title or heading is."""

MIN_REPEATS = 4
"""How often a head word must occur in its page to be a subject word."""


@lru_cache(maxsize=1024)
def _near_pattern(word: str) -> regex.Pattern[str]:
    """A word within one letter (words of 4 or 5 letters) or two (longer), as a whole word."""
    k = 1 if len(word) < 6 else 2
    return regex.compile(
        rf"(?<!{_LETTER})(?:{regex.escape(word)}){{e<={k}}}(?!{_LETTER})",
        regex.IGNORECASE,
    )


@lru_cache(maxsize=64)
def _words(text: str) -> tuple[Counter[str], tuple[str, ...]]:
    """The case-folded words of ``text`` counted, and its head words that occur at least
    :data:`MIN_REPEATS` times (its subject words before the other page is seen). Kept for the
    last texts seen: a page is compared with each of its candidates in turn."""
    words = _WORD.findall(text.casefold())
    counts = Counter(words)
    head = tuple(w for w in dict.fromkeys(words[:HEAD_WORDS]) if counts[w] >= MIN_REPEATS)
    return counts, head


def subject_words(a: str, b: str) -> list[str]:
    """The subject words of ``a`` (case folded, in order of first use) that ``b`` lacks.

    >>> fg = "Fill with FG Color. The Fill with FG Color command uses the FG color. Use FG."
    >>> bg = "Fill with BG Colour. The Fill with BG Colour command uses the BG colour. Use BG."
    >>> subject_words(fg, bg), subject_words(bg, fg)
    (['fg'], ['bg'])
    >>> subject_words(fg, fg.replace("Color", "Colour"))
    []
    """
    counts, head = _words(a)
    if not head:
        return []
    other = _words(b)[0]
    out = []
    for w in head:
        n = other[w]
        # The near matches of a word include its exact ones (a match of the pattern cannot
        # hold two whole words), so when these are enough the costly search is not needed.
        if len(w) >= 4 and n * MIN_REPEATS <= counts[w]:
            n = len(_near_pattern(w).findall(b))
        if n * MIN_REPEATS <= counts[w]:
            out.append(w)
    return out


def subject_differs(a: str, b: str) -> bool:
    """Whether ``a`` or ``b`` has a subject word the other lacks (:func:`subject_words`).

    >>> subject_differs("Flip Horizontally: flip horizontally; it flips horizontally, "
    ...                 "horizontally only.", "Flip Vertically: flip vertically; it flips "
    ...                 "vertically, vertically only.")
    True
    """
    return bool(subject_words(a, b) or subject_words(b, a))

"""Text normalisation and sentence splitting (step 1 of the method, first stage).

The paper (§4.2) strips the markup and "splits the remaining text into sentences by punctuation".
Fingerprints are MD5 digests of these sentences, so what matters most is that the *same* content
splits into the *same* sentences whatever page it came from: normalisation (NFKC, whitespace
collapse) makes full-width and half-width forms, odd spaces and line wrapping agree, and the
splitter cuts on

* Chinese sentence punctuation: 。！？；… (after NFKC ！？； become !?; and … becomes ...);
* Western sentence punctuation: ! ? ; always, and ``.`` only where it ends a sentence: followed
  by whitespace, a closing quote/bracket, a CJK character or the end, and not after a known
  abbreviation or a single capital letter ("e.g.", "Mr.", "U.S.", "J. Smith"); decimals such
  as 3.14 and names such as ``os.path`` never split;
* line breaks, which the extractor emits at every block element.

Delimiters (with any closing quotes/brackets that follow them) are not part of a sentence, so
"你好。" and "你好!" give the same sentence.

Widths are in the project's unit, GBK-equivalent width (see :mod:`verifier.units`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import regex

__all__ = ["Sentence", "normalize_text", "sentence_texts", "split_sentences", "width"]


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence: ``text == normalized[start:end]`` for the normalised text it came from."""

    text: str
    start: int
    end: int


# Invisible format characters that only break otherwise equal text apart.
_INVISIBLE = re.compile(r"[\u00ad\u200b-\u200d\u2060\ufeff]+")
_HSPACE = re.compile(r"[^\S\n]+")  # whitespace other than "\n" (incl. \r, \t, NBSP, ideographic)
_AROUND_NL = re.compile(r" ?\n[\n ]*")

_ABBREVIATIONS = (
    "Mr|Mrs|Ms|Dr|Prof|Sr|Jr|St|Mt|vs|cf|al|approx|resp|Fig|fig|No|no|Vol|vol|Inc|Ltd|Co|Corp|"
    "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|e\\.g|i\\.e"
)
_CLOSERS = "\"'”’»)\\]}）」』】》〉"
_DELIMITER = regex.compile(
    rf"""
    (?:
        \n
      | [。!?;]+ (?:\.{{3,}})?
      | \.{{2,}}                                         # ... (from … after NFKC), ..
      | (?<! \b(?:{_ABBREVIATIONS}) | \b\p{{Lu}} )       # not "Mr." / "e.g." / "U.S."
        \. (?= [\s{_CLOSERS}] | \p{{Han}} | $ )          # a period that ends a sentence
    )
    [{_CLOSERS}]*
    """,
    regex.VERBOSE | regex.VERSION1,
)


def normalize_text(text: str) -> str:
    """NFKC, invisible characters removed, whitespace collapsed.

    Runs of spaces/tabs become one space, line breaks survive (as single ``\\n``, because they
    are sentence breaks) and the text is stripped.

    >>> normalize_text("  Ｈｅｌｌｏ，\\u3000世界！\\r\\n\\n  next\\tline ")
    'Hello, 世界!\\nnext line'
    """
    if not text.isascii():
        if not unicodedata.is_normalized("NFKC", text):  # a fast scan; normalize() copies
            text = unicodedata.normalize("NFKC", text)
        text = _INVISIBLE.sub("", text)
    text = _HSPACE.sub(" ", text)
    if "\n" in text:
        text = _AROUND_NL.sub("\n", text)
    return text.strip()


def split_sentences(text: str, *, normalized: bool = False) -> list[Sentence]:
    """Sentences of ``text`` with offsets into ``normalize_text(text)``.

    Pass ``normalized=True`` when ``text`` is already the output of :func:`normalize_text`.

    >>> [s.text for s in split_sentences("他说：“好。”然后走了！Dr. Smith paid 3.14 dollars. Done")]
    ['他说:“好', '然后走了', 'Dr. Smith paid 3.14 dollars', 'Done']
    """
    if not normalized:
        text = normalize_text(text)
    out: list[Sentence] = []
    pos = 0
    for m in _DELIMITER.finditer(text):
        _append(out, text, pos, m.start())
        pos = m.end()
    _append(out, text, pos, len(text))
    return out


def _append(out: list[Sentence], text: str, start: int, end: int) -> None:
    while start < end and text[start] == " ":
        start += 1
    while end > start and text[end - 1] == " ":
        end -= 1
    if start < end:
        out.append(Sentence(text[start:end], start, end))


def sentence_texts(normalized: str) -> list[str]:
    """The texts of :func:`split_sentences` on already normalised text, without offsets.

    The fingerprinting hot path uses this: one C-level split, no per-sentence objects.
    """
    return [s for s in map(str.strip, _DELIMITER.split(normalized)) if s]


# --- width -----------------------------------------------------------------------------------


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


@lru_cache(maxsize=2)
def _wide_runs(astral: bool) -> re.Pattern[str]:
    """Runs of code points that :func:`verifier.units.char_width` counts as 2.

    Built from the running interpreter's Unicode database, so it always agrees with
    ``char_width``, on first use. Two patterns: the BMP one compiles to a bitmap (a fast scan);
    astral ranges would add a linear list of range tests for every character, so they are only
    used for the rare text that has astral characters. Stdlib ``re``: much faster than ``regex``
    on large character classes.
    """
    ranges: list[tuple[int, int]] = []
    start = None
    stop = 0x110000 if astral else 0x10000
    for cp in range(stop):
        wide = unicodedata.east_asian_width(chr(cp)) in ("W", "F")
        if wide and start is None:
            start = cp
        elif not wide and start is not None:
            ranges.append((start, cp - 1))
            start = None
    if start is not None:
        ranges.append((start, stop - 1))
    body = "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in ranges)
    return re.compile(f"[{body}]+")


def width(text: str) -> int:
    """GBK-equivalent width of ``text``; equal to :func:`verifier.units.text_width`.

    ASCII costs ``len``; other text is one C-level scan that deletes the wide characters
    (width = 2 per code point minus 1 per narrow one) instead of a Python loop over characters.

    >>> width("abc中文，")
    9
    """
    if text.isascii():
        return len(text)
    wide = _wide_runs(_ASTRAL.search(text) is not None)
    return 2 * len(text) - len(wide.sub("", text))

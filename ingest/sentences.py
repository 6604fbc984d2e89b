"""Text normalisation, sentence splitting and sentence keys (step 1 of the method, first stage).

The paper (§4.2) strips the markup and "splits the remaining text into sentences by punctuation".
Fingerprints are MD5 digests of these sentences, so what matters most is that the *same* content
gives the *same* sentences whatever page or format it came from (HTML, reST, Markdown, e-mail).

**Breaks.** A sentence ends at

* Chinese sentence punctuation 。！？；… (after NFKC ！？； are ``!?;`` and … is ``...``) and
  Western ``! ? ;``, always;
* ``.`` where it ends a sentence: followed by white space, a closing quote/bracket, a CJK
  character or the end, and not after a known abbreviation or a single capital letter ("Mr.",
  "e.g.", "U.S.", "J. Smith"); two or more dots (an ellipsis) always break; decimals (3.14)
  and dotted names (``os.path``) never;
* a **paragraph break**: a line break followed by a blank line. A *single* line break is a
  soft wrap inside a paragraph (reST, Markdown and e-mail are hard-wrapped at ~80 columns), not
  a break. The HTML extractor separates blocks by a blank line, so block boundaries still break.

Each break is decided by :func:`is_break` on one character and its neighbours, so the compiled
fast path (:mod:`neardup.ingest._fingerprint`) can make the same decisions in one pass.

**Keys.** A sentence is hashed through its *key* (:func:`sentence_key`), built character by
character: NFKD, casefold, and only letters and digits kept (``str.isalnum``; CJK ideographs are
letters) — punctuation, markup symbols such as `` ` * : _ < > ``, white space, invisible format
characters and combining marks go. Markup, spacing, width (full-/half-width), case, accent and
punctuation variants of one sentence have one key, and how a soft wrap was joined does not
matter. Being per character (NFKD decomposes, it never composes), the key needs no NFKC pass
over the whole text: the fingerprinting path reads the raw text, and so does :func:`is_break`,
which classifies each character by its own NFKC form (full-width ！ is a ``!``).

**Spelling form.** What is hashed is a key's *spelling form* (:func:`spelling_form`): its Latin
letters reduced to a consonant skeleton — the vowels ``a e i o u y`` dropped, ``z`` written
``s``, a run of one consonant written once. English spelling variants ("colour"/"color",
"centre"/"center", "grey"/"gray", "organise"/"organize", "catalogue"/"catalog",
"travelled"/"traveled", "programme"/"program") and vowel typos then hash alike; digits, CJK and
every other script are kept as they are. Widths (X, Z, chunks) stay those of the key itself, so
no sentence is dropped for being made mostly of vowels. On the GIMP manual's en and en_GB
variants (``bench/docsite.py``), whose twins differ by such spellings in nearly every sentence,
every one of the 685 twin pairs now meets (683 and 684 before, on the text and HTML corpora).

Widths are in the project's unit, GBK-equivalent width (see :mod:`neardup.verifier.units`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "ABBREVIATIONS",
    "Sentence",
    "char_class",
    "is_break",
    "key_of_char",
    "normalize_text",
    "prepare_text",
    "sentence_key",
    "sentence_keys",
    "sentence_texts",
    "spelling_form",
    "split_sentences",
    "width",
]


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence: ``text == normalized[start:end]`` for the normalised text it came from."""

    text: str
    start: int
    end: int


# Invisible format characters that only break otherwise equal text apart.
_INVISIBLE = re.compile(r"[\u00ad\u200b-\u200d\u2060\ufeff]+")
_HSPACE = re.compile(r"[^\S\n]+")  # whitespace other than "\n" (incl. \r, \t, NBSP, ideographic)
_LINE_BREAKS = re.compile(r" ?\n(?: ?\n)* ?")  # after _HSPACE: a soft wrap or a paragraph break

#: Words after which a period does not end a sentence ("e.g." and "i.e." are handled apart).
ABBREVIATIONS = frozenset(
    "Mr Mrs Ms Dr Prof Sr Jr St Mt vs cf al approx resp Fig fig No no Vol vol Inc Ltd Co Corp "
    "Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec".split()
)
#: Closing quotes and brackets: a period followed by one ends a sentence.
CLOSERS = frozenset("\"'”’»)]}）」』】》〉")


def _is_cjk(ch: str) -> bool:
    """CJK ideographs and kana: scripts written without spaces between words."""
    cp = ord(ch)
    return (
        0x3400 <= cp <= 0x9FFF
        or 0x3040 <= cp <= 0x30FF
        or 0xF900 <= cp <= 0xFAFF
        or 0x20000 <= cp <= 0x3FFFF
    )


# Character classes for is_break (bit flags; the compiled path tabulates the same function).
STOP, PERIOD, SPACE, CLOSER, CJK, ALPHA, UPPER = 1, 2, 4, 8, 16, 32, 64


@lru_cache(maxsize=65536)
def char_class(ch: str) -> int:
    """Bit flags of one character, from its own NFKC form: STOP (。!?; or an ellipsis),
    PERIOD (``.``), SPACE, CLOSER (closing quote/bracket), CJK, ALPHA, UPPER."""
    nf = unicodedata.normalize("NFKC", ch)
    flags = 0
    if nf in ("。", "!", "?", ";") or (len(nf) > 1 and nf.strip(".") == ""):
        flags |= STOP
    if nf == ".":
        flags |= PERIOD
    if ch.isspace():
        flags |= SPACE
    if nf in CLOSERS:
        flags |= CLOSER
    if _is_cjk(ch):
        flags |= CJK
    if ch.isalpha():
        flags |= ALPHA
    if ch.isupper():
        flags |= UPPER
    return flags


def is_break(text: str, i: int) -> bool:
    """Whether ``text[i]`` ends a sentence (see the module docstring).

    Characters are classified by their own NFKC form, so raw and NFKC text break alike.

    >>> s = "Dr. No paid 3.14 in the U.S. Then left."
    >>> [i for i in range(len(s)) if is_break(s, i)]
    [38]
    """
    ch = text[i]
    n = len(text)
    if ch == "\n":  # a paragraph break when only white space separates it from the next "\n"
        j = i + 1
        while j < n and text[j] != "\n" and text[j].isspace():
            j += 1
        return j < n and text[j] == "\n"
    flags = char_class(ch)
    if flags & STOP:
        return True
    if not flags & PERIOD:
        return False
    if (i + 1 < n and char_class(text[i + 1]) & PERIOD) or (
        i > 0 and char_class(text[i - 1]) & PERIOD
    ):
        return True  # an ellipsis
    if i + 1 < n and not char_class(text[i + 1]) & (SPACE | CLOSER | CJK):
        return False  # 3.14, os.path, example.com
    j = i
    while j > 0 and char_class(text[j - 1]) & ALPHA:
        j -= 1
    if i - j == 1 and char_class(text[j]) & UPPER:
        return False
    if 2 <= i - j <= 5 and unicodedata.normalize("NFKC", text[j:i]) in ABBREVIATIONS:
        return False
    if i >= 3 and char_class(text[i - 2]) & PERIOD:
        return unicodedata.normalize("NFKC", text[i - 3] + text[i - 1]) not in ("eg", "ie")
    return True


@lru_cache(maxsize=1)
def _candidates() -> re.Pattern[str]:
    """The characters that can be breaks: "\\n" and the BMP characters classed STOP or PERIOD
    (no astral character has such an NFKC form)."""
    chars = [chr(cp) for cp in range(0x10000) if not 0xD800 <= cp < 0xE000]
    marks = [c for c in chars if unicodedata.normalize("NFKC", c) != c or c in "。!?;."]
    found = "".join(c for c in marks if char_class(c) & (STOP | PERIOD))
    return re.compile("[\n" + re.escape(found) + "]")


def _break_positions(text: str) -> list[int]:
    return [m.start() for m in _candidates().finditer(text) if is_break(text, m.start())]


def prepare_text(text: str) -> str:
    """NFKC and invisible characters removed: the text the breaks and keys are computed on.

    White space is left as it is (keys ignore it; :func:`is_break` reads line breaks).
    """
    if not text.isascii():
        if not unicodedata.is_normalized("NFKC", text):  # a fast scan; normalize() copies
            text = unicodedata.normalize("NFKC", text)
        text = _INVISIBLE.sub("", text)
    return text


def normalize_text(text: str) -> str:
    """:func:`prepare_text`, white space collapsed, soft wraps joined: readable sentences.

    Runs of spaces/tabs become one space; a paragraph break (a line break followed by blank
    lines) becomes one blank line (``"\\n\\n"``); a single line break (a soft wrap) becomes a
    space, or nothing between two CJK characters; the text is stripped. The breaks of
    :func:`split_sentences` on the result are those of the prepared text.

    >>> normalize_text("  Ｈｅｌｌｏ，\\u3000世界！\\r\\n\\n  next\\tline\\nwrapped 中\\n文 ")
    'Hello, 世界!\\n\\nnext line wrapped 中文'
    """
    text = _HSPACE.sub(" ", prepare_text(text))
    if "\n" in text:
        text = _LINE_BREAKS.sub(_join_lines, text)
    return text.strip()


def _join_lines(m: re.Match[str]) -> str:
    run = m.group()
    if run.count("\n") > 1:
        return "\n\n"
    text, start, end = m.string, m.start(), m.end()
    if 0 < start and end < len(text) and _is_cjk(text[start - 1]) and _is_cjk(text[end]):
        return ""
    return " "


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
    for i in _break_positions(text):
        _append(out, text, pos, i)
        pos = i + 1
    _append(out, text, pos, len(text))
    return out


def _append(out: list[Sentence], text: str, start: int, end: int) -> None:
    while start < end and (text[start] in " \n" or text[start] in CLOSERS):
        start += 1  # closing quotes/brackets after a break belong to the sentence before
    while end > start and text[end - 1] in " \n":
        end -= 1
    if start < end:
        out.append(Sentence(text[start:end], start, end))


def sentence_texts(normalized: str) -> list[str]:
    """The texts of :func:`split_sentences` on already normalised text, without offsets."""
    return [s.text for s in split_sentences(normalized, normalized=True)]


class _KeyMap(dict[int, str]):
    """``str.translate`` table of :func:`sentence_key`, filled on first sight of a character."""

    def __missing__(self, cp: int) -> str:
        kept = self[cp] = _key_of(cp)
        return kept


def _key_of(cp: int) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", chr(cp)).casefold() if c.isalnum())


_KEYMAP = _KeyMap()


def key_of_char(ch: str) -> str:
    """The key of one character: NFKD, casefold, letters and digits only (often ``""``)."""
    return _KEYMAP[ord(ch)]


def sentence_key(sentence: str) -> str:
    """The form of a sentence that is hashed (see the module docstring).

    >>> sentence_key("Use ``os.path.join()``: it *joins* paths!")
    'useospathjoinitjoinspaths'
    >>> sentence_key("Ｃａｆé，１９９８年。") == sentence_key("café 1998年")
    True
    """
    return sentence.translate(_KEYMAP)


#: :func:`spelling_form`: the vowels go and ``z`` is written ``s`` (a ``str.translate`` table).
_SPELLING = {ord(c): None for c in "aeiouy"} | {ord("z"): "s"}
_DOUBLED = re.compile(r"([bcdfghjklmnpqrstvwx])\1+")  # a consonant repeated (after the table)


def spelling_form(key: str) -> str:
    """The form of a key (or chunk) that is hashed: its Latin letters reduced to a consonant
    skeleton — ``a e i o u y`` dropped, ``z`` written ``s``, then a run of one consonant written
    once. Digits, CJK and every other script are left as they are.

    English spelling variants and vowel typos give one form (see the module docstring):

    >>> [spelling_form(sentence_key(s)) for s in ("Colour centre", "color center")]
    ['clrcntr', 'clrcntr']
    >>> spelling_form("organisedtravelledprogramme") == spelling_form("organizedtraveledprogram")
    True
    >>> spelling_form("1100年中文ab")
    '1100年中文b'
    """
    return _DOUBLED.sub(r"\1", key.translate(_SPELLING))


def sentence_keys(text: str) -> list[str]:
    """Keys of the sentences of ``text`` (empty keys dropped): the fingerprinting reference.

    Computed on the raw text (no NFKC, no white-space collapsing: keys are per character and
    ignore white space); the same keys as ``split_sentences`` gives, up to combining sequences.
    """
    keys: list[str] = []
    pos = 0
    for i in [*_break_positions(text), len(text)]:
        key = text[pos:i].translate(_KEYMAP)
        if key:
            keys.append(key)
        pos = i + 1
    return keys


# --- width -----------------------------------------------------------------------------------


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


@lru_cache(maxsize=2)
def _wide_runs(astral: bool) -> re.Pattern[str]:
    """Runs of code points that :func:`neardup.verifier.units.char_width` counts as 2.

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
    """GBK-equivalent width of ``text``; equal to :func:`neardup.verifier.units.text_width`.

    ASCII costs ``len``; other text is one C-level scan that deletes the wide characters
    (width = 2 per code point minus 1 per narrow one) instead of a Python loop over characters.

    >>> width("abc中文，")
    9
    """
    if text.isascii():
        return len(text)
    wide = _wide_runs(_ASTRAL.search(text) is not None)
    return 2 * len(text) - len(wide.sub("", text))

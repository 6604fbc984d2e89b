"""Template siblings: two pages of one site filled from one template for different subjects;
and spelling variants: one page in British and American spelling.

A documentation set, a shop or a directory generates many pages from one template: "Fill with
FG Color" and "Fill with BG Color", a function family ``XCOS`` / ``XCOT``, statement pages
sharing one syntax block, source listings under one license header. Their texts share nearly
every sentence and the content rule calls them similar; a reader calls them different pages,
because they are about different things. What a page is about shows in its name, at its head,
and in the identifiers it uses. :func:`subject_differs` is true when

* either page has a **subject word** the other lacks (:func:`subject_words`): a word among the
  first :data:`HEAD_WORDS` words that occurs at least :data:`MIN_REPEATS` times in it (once
  every :data:`REPEAT_WORDS` words of a shorter page, twice at least) and at most a quarter as
  often in the other page (a generated manual links the previous and the
  next page by title, so a sibling names the other's subject once), a spelling variant,
  typo or other form of the word (:func:`stem`: "Beginning" for "Begin") counted as the word
  — unless the word is an **identifier** (:func:`is_identifier`:
  ``XCOS``, ``DefBool``, ``pg_stat``, ``DOMException``), which counts only as itself;
* their **names** (:func:`page_name`: a first block that is a title or heading) differ by a
  substitution (:func:`name_differs`);
* each uses **identifiers the other lacks** (:func:`identifier_words`), together at least
  :data:`MIN_IDENTIFIER_USES` times (twice on two short pages).
* each has **lines of its own** (:func:`own_differs`): a sentence on a line of its own that
  shares under half its words with every line and sentence of the other page (:func:`own_lines`),
  more than :data:`OWN_LINES` together or one each at different places: two menu pages listing
  their own commands under one template.

A token used once that is a typo of one of the other page's tokens tells no subject: copies
with edits stay copies. :func:`spelling_variants` writes two pages in one spelling when one
writes a word the British way and the other the American way.

The rules look at Latin-script tokens (not CJK characters: a name in a Chinese page is several
characters, each a common word of its own), and apply to pages of **one site** only
(``neardup.ingest.pairs``): on the human-judged Webis pages, which carry no site, they would
part a quarter of the judged duplicates (one story under two newspapers' headlines). Measured
on five documentation sites: docs/quality.md, "Template siblings".
"""

from __future__ import annotations

import itertools
import os
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from functools import lru_cache

import regex
import snowballstemmer
from rapidfuzz.distance import Levenshtein

__all__ = [
    "HEAD_WORDS", "MIN_IDENTIFIER_USES", "MIN_REPEATS", "NAME_ADDED", "NAME_CHARS", "NAME_HEAD",
    "NAME_WORDS", "OWN_COMPARISONS", "OWN_LINES", "RENAMED", "REPEAT_WORDS", "SENTENCE_WORDS",
    "TYPO_EDITS",
    "identifier_words",
    "is_identifier", "name_differs", "named_things", "one_spelling", "own_differs", "own_lines",
    "page_name",
    "spelling_variants", "stem", "subject_differs",
    "subject_words",
]

# The CJK scripts, whose characters are words of their own (as in the verifier), never part of
# a word or token below.
_CJK_SCRIPTS = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}"
# Words that can name a subject: letters only (any script but CJK), two or more.
_LETTER = rf"[^\W\d_{_CJK_SCRIPTS}]"
_WORD = regex.compile(_LETTER + "{2,}")
# Tokens as written, for identifiers: runs of letters and digits, underscores inside a run
# joining it ("pg_stat_activity"), not CJK characters.
_TOKEN = regex.compile(rf"[^\W_{_CJK_SCRIPTS}]+(?:_+[^\W_{_CJK_SCRIPTS}]+)*")
_CJK = regex.compile(f"[{_CJK_SCRIPTS}]")
_CJK_RUN = regex.compile(f"[{_CJK_SCRIPTS}]+")  # counted by runs: a match a run, not a character
# A capital after a small letter ("DefBool"), or two capitals before two small letters
# ("DOMException", "QName"; not "URLs", "IDs").
_CAMEL = regex.compile(r"\p{Ll}\p{Lu}|\p{Lu}\p{Lu}\p{Ll}{2}")
_ORDINAL = regex.compile(r"\d+(?:st|nd|rd|th)", regex.IGNORECASE)
# Symbols in a name, each run a token of it: the pages of "+" and "/" of one template are two,
# and Haddock's index pages "(Index - +)" and "(Index - :)".
_OPERATOR = regex.compile(r"[^\w\s()\[\]{}\"'“”‘’«»,;]+")
# The operators that name an operator's page.
_OPERATION = regex.compile(r"[-+*/\\^&|<>=%~!]+")
# A capitalised word inside a sentence (after a small letter, a digit or a comma): the name of
# a thing, a command or a label ("select the Illustration Index").
_NAME_WORD = regex.compile(r"(?<=[\p{Ll}\d,;:][ \t]{1,8}|\()\b\p{Lu}\p{Ll}{2,}\b")

HEAD_WORDS = 8
"""How many words open a page: where its title or heading is."""

MIN_REPEATS = 4
"""How often a head word must occur in its page to be a subject word; in a shorter page, once
every :data:`REPEAT_WORDS` words (rounded up), twice at least."""

REPEAT_WORDS = 25
"""A short page names its subject less often: "Selects the row that contains the cursor.
Choose Table - Select - Row." (26 words) says "row" twice (:data:`MIN_REPEATS`). A CJK
character is one word, as in the verifier."""

NAME_HEAD = 24
"""How many tokens open a page for :func:`named_things`: its name and the sentence that says
what the page is about."""

MIN_IDENTIFIER_USES = 3
"""How many uses of identifiers the other page lacks two pages must have together, each at
least one (:func:`identifier_words`); two when both pages are of at most :data:`REPEAT_WORDS`
words, where one identifier named once may be all a page has of its own (an index page of one
member)."""

NAME_WORDS = 20
"""The longest first block (in tokens) taken for a page's name (:func:`page_name`)."""

NAME_CHARS = 160
"""The longest first block (in characters) taken for a page's name: a paragraph of Chinese
text holds few tokens (:func:`page_name` counts no CJK characters) and is no name."""

NAME_ADDED = 2
"""How many words one page's name must add to the other's, which has two or more, for the names
to differ (:func:`name_differs`)."""

SENTENCE_WORDS = 4
"""The fewest words of a line that is a page's own (:func:`own_lines`): shorter lines are
labels, headings and menu entries."""

OWN_LINES = 2
"""How many own lines (:func:`own_lines`) the two pages may have together, one each at the same
place, and still be one page reworded (:func:`own_differs`)."""

OWN_COMPARISONS = 1 << 20
"""How many comparisons with the other page's lines and sentences :func:`own_lines` makes for
a page's lines, all together, at most (each line counting the whole list it is compared with):
past that, the page's lines left are taken for the other page's."""

RENAMED = 2
"""How many identifiers, one page's, changed by the same edit into the other's, make a rename
rather than typos (:func:`_renamed`)."""

TYPO_EDITS = 2
"""The most edits (letters inserted, deleted or replaced) between a short token and its typo
(more in a longer token: :func:`_edits`)."""


def is_identifier(token: str) -> bool:
    """Whether ``token`` (as written) is an identifier rather than a word of prose: it joins
    letters and digits ("lang3", "x86", not "3rd") or words by an underscore
    ("column_privileges"), has a capital after a small letter ("DefBool", "FailableBiConsumer")
    or two capitals before two small letters ("DOMException", "QName": an acronym that opens a
    name; "URLs" stays a word) or is two or more capitals ("XCOS", "FG"). Identifiers are
    never spelling variants of each other: "XCOS" and "XCOT" are two functions, "colour" and
    "color" one word. (In a page's name, a token with any capital after its first letter is
    one too: :func:`_unmatched`.)

    >>> [t for t in ("XCOS", "DefBool", "pg_stat", "log10", "DOMException", "3rd", "Colour",
    ...              "colour", "URLs", "12") if is_identifier(t)]
    ['XCOS', 'DefBool', 'pg_stat', 'log10', 'DOMException']
    """
    if "_" in token:
        return True
    digits = sum(c.isdigit() for c in token)
    if digits:
        return digits < len(token) and _ORDINAL.fullmatch(token) is None
    return _CAMEL.search(token) is not None or (len(token) >= 2 and token.isupper())


def _tokens(text: str) -> tuple[Counter[str], frozenset[str], dict[str, tuple[str, ...]]]:
    """The case-folded tokens of ``text`` counted, those written as identifiers
    (:func:`is_identifier`) wherever they occur, and the parts (:func:`_parts`, case folded) of
    each token written in two or more (in the most it is written in)."""
    return _forms_of(text)[:3]


@lru_cache(maxsize=512)
def _forms_of(text: str) -> tuple[Counter[str], frozenset[str], dict[str, tuple[str, ...]],
                                  Counter[str]]:
    """:func:`_tokens` of ``text`` and its case-folded words counted (:func:`_words`). Kept for
    the last texts seen.

    Most tokens are words as prose writes them ("colour", "Colour": letters, small after the
    first), a word of their own and no identifier; they are counted in C, and only the other
    tokens' forms (:func:`_form`) are looked at one by one."""
    tokens = _token_list(text)
    written = _token_counts(text)
    counts = Counter(map(str.casefold, tokens))
    # (:func:`_prose_word` inlined: a call a token was a tenth of the one-site rules' time)
    plain = {t for t in written if t.isalpha() and (t.islower() or t[1:].islower())}
    words = counts.copy()  # a plain token's word is its case fold (below: a short one has none)
    idents: set[str] = set()
    not_idents = set(map(str.casefold, plain))
    parts: dict[str, tuple[str, ...]] = {}
    changed: set[str] = set()
    forms = _FORMS
    for t, n in written.items():
        if t in plain:
            continue
        got = forms.get(t)
        f, ident, p, ws = _form(t) if got is None else got
        (idents if ident else not_idents).add(f)
        if len(p) > 1 and len(p) > len(parts.get(f, ())):
            parts[f] = p
        if ws != (f,):
            words[f] -= n
            changed.add(f)
            for w in ws:
                words[w] += n
    for f in changed:
        if words[f] <= 0:
            del words[f]
    for f in [f for f in words if len(f) < 2]:  # a word is two letters or more
        del words[f]
    return counts, frozenset(idents - not_idents), parts, words


@lru_cache(maxsize=512)
def _token_list(text: str) -> tuple[str, ...]:
    """The tokens of ``text`` as written, in order. Kept for the last texts seen: a text written
    in one spelling (:func:`one_spelling`) is most often the text itself."""
    return tuple(_TOKEN.findall(text))


@lru_cache(maxsize=512)
def _token_counts(text: str) -> Counter[str]:
    """Each token of ``text`` as written (:func:`_token_list`) and its count: what its tokens
    (:func:`_tokens`) and its words (:func:`_words`) are counted from. Kept for the last texts
    seen."""
    return Counter(_token_list(text))


def _prose_word(token: str) -> bool:
    """Whether ``token`` is a word as prose writes it ("colour", "Colour": letters, small after
    the first): one part, one word, no identifier."""
    return token.isalpha() and (token.islower() or token[1:].islower())


_FORMS: dict[str, tuple[str, bool, tuple[str, ...], tuple[str, ...]]] = {}
_MAX_FORMS = 1 << 15  # (the cache then holds under 20 MB)


def _form(token: str) -> tuple[str, bool, tuple[str, ...], tuple[str, ...]]:
    """``token`` case folded, whether it is an identifier (:func:`is_identifier`), its parts
    (:func:`_parts`) and its words (:data:`_WORD`, case folded); kept for the tokens seen last
    (a site's pages share most of theirs)."""
    got = _FORMS.get(token)
    if got is None:
        f = token.casefold()
        if _prose_word(token):
            got = (f, False, (f,), (f,) if len(f) >= 2 else ())
        else:
            got = (f, is_identifier(token), tuple(p.casefold() for p in _parts(token)),
                   (f,) if f.isalpha() and len(f) >= 2 else tuple(_WORD.findall(f)))
        if len(_FORMS) >= _MAX_FORMS:
            _FORMS.clear()
        _FORMS[token] = got
    return got


_PART_BREAK = regex.compile(r"(?<=\p{Ll})(?=\p{Lu})|(?<=\p{L})(?=\d)|(?<=\d)(?=\p{L})|_+")


def _parts(token: str) -> list[str]:
    """The parts ``token`` is written in: "FailableIntSupplier" 3 ("Failable", "Int",
    "Supplier"), "pg_stat" 2, "log10" 2, "colour" 1."""
    return [p for p in _PART_BREAK.split(token) if p]


@lru_cache(maxsize=1024)
def _near_pattern(word: str) -> regex.Pattern[str]:
    """A word within one letter (words of 4 or 5 letters) or two (longer), as a whole word."""
    k = 1 if len(word) < 6 else 2
    return regex.compile(
        rf"(?<!{_LETTER})(?:{regex.escape(word)}){{e<={k}}}(?!{_LETTER})",
        regex.IGNORECASE,
    )


_STEMMERS = threading.local()  # a Snowball stemmer keeps state: one per thread


@lru_cache(maxsize=1 << 15)
def stem(word: str) -> str:
    """The English Snowball stem of a case-folded word of prose: the forms of one word meet
    ("begin" / "beginning", "content" / "contents", "horizontal" / "horizontally"), two words
    do not ("horizontally" / "vertically", "cosine" / "sine").

    >>> [stem(w) for w in ("beginning", "contents", "horizontally", "cosine", "sine")]
    ['begin', 'content', 'horizont', 'cosin', 'sine']
    """
    stemmer = getattr(_STEMMERS, "english", None)
    if stemmer is None:
        stemmer = _STEMMERS.english = snowballstemmer.stemmer("english")
    return str(stemmer.stemWord(word))


@lru_cache(maxsize=64)
def _by_head(text: str) -> dict[str, list[tuple[str, int]]]:
    """The words of ``text`` (:func:`_words`) and their counts, by their first three letters."""
    out: dict[str, list[tuple[str, int]]] = {}
    for w, n in _forms_of(text)[3].items():
        out.setdefault(w[:3], []).append((w, n))
    return out


def _form_count(word: str, text: str) -> int:
    """How often ``text`` writes a form of ``word`` (a word of its stem, :func:`stem`, and of its
    first three letters: only those are stemmed, the rest of the page is not looked at)."""
    s = stem(word)
    return sum(n for w, n in _by_head(text).get(word[:3], ()) if stem(w) == s)


@lru_cache(maxsize=512)
def _length(text: str) -> int:
    """A page's length in words: every CJK character is one, as in the verifier. Kept for the
    last texts seen."""
    return sum(_forms_of(text)[3].values()) + sum(map(len, _CJK_RUN.findall(text)))


@lru_cache(maxsize=64)
def _words(text: str) -> tuple[Counter[str], tuple[str, ...]]:
    """The case-folded words of ``text`` counted, and its head words that occur at least
    :data:`MIN_REPEATS` times, or once every :data:`REPEAT_WORDS` words of a shorter page and
    twice at least, and of three letters or more unless an identifier (its subject words
    before the other page is seen). Kept for the last texts seen: a page is compared with each
    of its candidates in turn."""
    # A word is inside one token (a token's letters, between its digits and underscores): the
    # words are the tokens' words, found once a form (:func:`_form`).
    counts = _forms_of(text)[3]
    first: list[str] = []
    for t in _token_list(text):
        first.extend(_form(t)[3])
        if len(first) >= HEAD_WORDS:
            break
    need = min(MIN_REPEATS, max(2, -(-_length(text) // REPEAT_WORDS)))
    idents = _tokens(text)[1]
    # "an" / "a": two letters of prose are a function word, no subject
    head = tuple(w for w in dict.fromkeys(first[:HEAD_WORDS])
                 if counts[w] >= need and (len(w) >= 3 or w in idents))
    return counts, head


def subject_words(a: str, b: str) -> list[str]:
    """The subject words of ``a`` (case folded, in order of first use) that ``b`` lacks.

    A head word written as an identifier wherever it occurs in ``a`` (:func:`is_identifier`)
    counts in ``b`` only as itself; any other word also as its spelling variants and, failing
    these, as its other forms (the words of its stem, :func:`stem`). A word of two
    letters is a subject only as an identifier ("FG"): in prose it is a function word ("an URL"
    / "a URL").

    >>> fg = "Fill with FG Color. The Fill with FG Color command uses the FG color. Use FG."
    >>> bg = "Fill with BG Colour. The Fill with BG Colour command uses the BG colour. Use BG."
    >>> subject_words(fg, bg), subject_words(bg, fg)
    (['fg'], ['bg'])
    >>> subject_words(fg, fg.replace("Color", "Colour"))
    []
    >>> xcos = "XCOS function. XCOS(x) returns the cosine. =XCOS(2). See XCOS."
    >>> subject_words(xcos, xcos.replace("XCOS", "XCOT"))
    ['xcos']
    """
    counts, head = _words(a)
    if not head:
        return []
    other = _words(b)[0]
    idents = _tokens(a)[1]
    out = []
    for w in head:
        n = other[w]
        # The near matches of a word include its exact ones (a match of the pattern cannot
        # hold two whole words), so when these are enough the costly search is not needed.
        if len(w) >= 4 and n * MIN_REPEATS <= counts[w] and w not in idents:
            n = len(_near_pattern(w).findall(b))
            if n * MIN_REPEATS <= counts[w]:  # another form of the word ("Beginning")
                n = _form_count(w, b)
        if n * MIN_REPEATS <= counts[w] and not _compound(w, _tokens(b)[0], _tokens(a)[0]):
            out.append(w)
    return out


def identifier_words(a: str, b: str) -> dict[str, int]:
    """The identifiers of ``a`` (:func:`is_identifier`, case folded) that ``b`` lacks — has at
    most a quarter as often, in any spelling — with their uses in ``a``.

    >>> identifier_words("See EqualsBuilder and reflectionEquals; EqualsBuilder.",
    ...                  "See HashCodeBuilder and reflectionHashCode.")
    {'equalsbuilder': 2, 'reflectionequals': 1}
    """
    counts, idents, _ = _tokens(a)
    other = _tokens(b)[0]
    lacking = {t: n for t, n in counts.items() if t in idents and other[t] * MIN_REPEATS <= n}
    if not lacking:
        return lacking
    # One page writes as one token what the other writes as two, side by side ("Add-Ins
    # Add-Ins" / "Add-InsAdd-Ins": two links' texts, with a space between them or none): the
    # other's two tokens, or its one token (one this page lacks) holding ours, are uses of
    # ours. Looked for only where the other page has the parts, or the longer token, it takes.
    shortest = min(map(len, lacking))
    longer = [u for u in other if len(u) > shortest and u not in counts]
    out = {}
    for t, n in lacking.items():
        uses = other[t]
        if any(other[t[:i]] and other[t[i:]] for i in range(1, len(t))):
            uses += _side_by_side(b).get(t, 0)
        holders = [u for u in longer if len(u) > len(t) and (u.startswith(t) or u.endswith(t))]
        if holders:
            joined = _side_by_side(a)
            uses += sum(other[u] for u in holders if u in joined
                        and (u[len(t):] in counts if u.startswith(t) else u[:-len(t)] in counts))
        if uses * MIN_REPEATS <= n:
            out[t] = n
    return out


@lru_cache(maxsize=16)
def _side_by_side(text: str) -> Counter[str]:
    """The tokens that two tokens of ``text`` written side by side make when written as one
    (case folded), counted: what another page may write as one token ("Add-Ins Add-Ins", in
    one spelling, :func:`one_spelling`: ``{"addinsaddins": 1, ...}``)."""
    tokens = [t.casefold() for t in _token_list(text)]
    return Counter(map(str.__add__, tokens, tokens[1:]))


def _edits(token: str) -> int:
    """The most edits between a token and its typo: :data:`TYPO_EDITS` in a token of up to five
    characters, one more in a longer one, a quarter of a token of sixteen and more (edits of a
    long token come several to it)."""
    return TYPO_EDITS if len(token) < 6 else max(TYPO_EDITS + 1, len(token) // 4)


def _within(token: str, other: str, k: int) -> bool:
    """Whether ``other`` is within ``k`` edits (letters inserted, deleted or replaced) of
    ``token``: their Levenshtein distance, bit-parallel (rapidfuzz), stopped past ``k``. (A
    fuzzy regular expression takes seconds on two 64-digit hashes at 16 edits.)"""
    return Levenshtein.distance(token, other, score_cutoff=k) <= k


def _typo(token: str, others: Iterable[str], long: bool = True,
          parts: Callable[[str], tuple[str, ...]] | None = None) -> bool:
    """Whether ``token`` is within :func:`_edits` edits of one of ``others`` (tokens of three
    characters or more): what an edit of one occurrence makes of a word; within
    :data:`TYPO_EDITS` only, when not ``long``. With ``parts`` (a token's parts,
    :func:`_parts`), two tokens written in different numbers of parts are no typo of each
    other ("FailableSupplier", "FailableIntSupplier": a part added), unless one is one part;
    two written in the same number of parts are one when each part is a typo of the other's
    (within :func:`_edits` of the longer of the two, three at least: a copy's edit of a few
    letters in a short part is still an edit): "FailableIntSupplier" and
    "FailableShortSupplier" are two names (a part replaced), "XmlReaderImpl" and
    "XmlRaederImpl" one."""
    if len(token) < 3:
        return False
    k = _edits(token) if long else TYPO_EDITS
    mine = parts(token) if parts else (token,)
    for o in others:
        if len(o) < 3 or abs(len(o) - len(token)) > k or o == token \
                or not _within(token, o, k):
            continue
        if len(mine) == 1:
            return True
        theirs = parts(o) if parts else (o,)
        if len(theirs) == 1 or (len(theirs) == len(mine) and all(
                x == y or _within(x, y, max(_edits(x), _edits(y), TYPO_EDITS + 1))
                for x, y in zip(mine, theirs, strict=True))):
            return True
    return False


def _telling(
    mine: dict[str, int], theirs: Iterable[str], uses: Counter[str], long: bool = True,
    parts: Callable[[str], tuple[str, ...]] | None = None,
) -> dict[str, int]:
    """The tokens of ``mine`` that tell a page's subject rather than an edit: those used twice
    or more in the page (``uses``: a subject recurs, "XCOS ... =XCOS(2)"), and those of three
    characters or more that are no typo of a token of the other page (``theirs``;
    :func:`_typo`, with ``long``)."""
    return {t: n for t, n in mine.items()
            if uses[t] >= 2 or (len(t) >= 3 and not _typo(t, theirs, long, parts))}


def page_name(text: str) -> tuple[str, ...]:
    """The tokens, as written, of the page's name: its first block (text up to the first blank
    line) when it has at most :data:`NAME_WORDS` tokens and :data:`NAME_CHARS` characters — a
    title or a heading; ``()`` when the page opens with a longer block."""
    first = text.lstrip().split("\n\n", 1)[0]
    if len(first) > NAME_CHARS:
        return ()
    tokens = _TOKEN.findall(first)
    return (*tokens, *_OPERATOR.findall(first)) if len(tokens) <= NAME_WORDS else ()


def _name_identifier(token: str) -> bool:
    return is_identifier(token) or any(c.isupper() for c in token[1:])


def _unmatched(a: tuple[str, ...], b: tuple[str, ...]) -> list[str]:
    """The tokens of name ``a`` that name ``b`` does not have, each token of ``b`` standing for
    one of ``a``'s ("arch ... Processor.Arch" / "arch ... Processor.Type": "arch" once in
    ``b``): as an identifier or a number, the same token (case folded); as a word, the same
    word or a spelling variant of another of ``b``'s words (within one letter for 4 or 5
    letters, two for longer, same first letter).
    A name's token with a capital after its first letter is an identifier ("CLng" / "CSng":
    two functions)."""
    exact = Counter(t.casefold() for t in b)
    left = exact.copy()  # each token of ``b`` matches one of ``a``'s: "arch ... Processor.Arch"
    words = [t.casefold() for t in b if t.isalpha() and not _name_identifier(t)]
    out = []
    for t in a:
        f = t.casefold()
        if left[f] > 0:
            left[f] -= 1
            continue
        if _compound(f, exact, Counter({t.casefold(): 1 for t in a})):
            continue
        if t.isalpha() and not _name_identifier(t) and len(f) >= 4:
            pattern = _near_pattern(f)
            if any(w[0] == f[0] and w != f and pattern.fullmatch(w) for w in words):
                continue
        out.append(f)
    return out


def _mark(token: str) -> bool:
    """Whether a name's token is a single character, a symbol or a letter: the mark of an index
    page ("Index - +"). A run of symbols is none (a reST title's underline, "=====")."""
    return len(token) == 1


def name_differs(a: str, b: str) -> bool:
    """Whether the names of two pages (:func:`page_name`) differ by a substitution: each has a
    token the other lacks (an identifier, a number or a word that is no spelling variant),
    that tells the page's subject — used again in the page, or unlike any of the other name's
    tokens (:func:`_telling`: an edit of one letter or two in one name is a typo), or an
    operator each lacks ('"+" Operator' / '"/" Operator'). A name that adds one word to the
    other ("Customize" / "Customize Dialog") does not differ; one that adds :data:`NAME_ADDED`
    or more to a name of two tokens or more does ("Package lang3" / "Uses of Package lang3").
    Two names that are the same letters but for their spaces are one ("Dragging and Dropping"
    / "Dragging-and-Dropping", which :func:`one_spelling` writes "DraggingandDropping").

    >>> name_differs("DefBool Statement\\n\\nSets ...", "DefCur Statement\\n\\nSets ...")
    True
    >>> name_differs("Customize\\n\\nOpens ...", "Customise\\n\\nOpens ..."), name_differs(
    ...     "Colour Dialog\\n\\n...", "Colour Dialogue Box\\n\\n...")
    (False, False)
    >>> name_differs("XCOS\\n\\nXCOS(x)", "XCOT\\n\\nXCOT(x)"), name_differs(
    ...     "Table 1222\\n\\nRows.", "Table 12u2\\n\\nRows.")
    (True, False)
    >>> name_differs('"+" Operator\\n\\nAdds.', '"/" Operator\\n\\nDivides.'), name_differs(
    ...     "Package lang3\\n\\nClasses.", "Uses of Package lang3\\n\\nClasses.")
    (True, True)
    >>> name_differs("X Y Error Bars\\n\\nShows.", one_spelling("X Y-Error Bars\\n\\nShows."))
    False
    """
    na, nb = page_name(a), page_name(b)
    if not na or not nb:
        return False
    if "".join(na).casefold() == "".join(nb).casefold():
        return False  # one name with other spaces ("Y Axis" / "Y-Axis", written "YAxis")
    ua, ub = _unmatched(na, nb), _unmatched(nb, na)
    if not (ua and ub):
        # One name adds two words or more to the other ("Uses of Package X" / "Package X"):
        # another page about the same thing.
        return len(ua or ub) >= NAME_ADDED and len(na) >= 2 and len(nb) >= 2
    if any(map(_OPERATION.fullmatch, ua)) and any(map(_OPERATION.fullmatch, ub)):
        return True  # an operator each ('"+" Operator' / '"/" Operator')
    if any(map(_mark, ua)) and any(map(_mark, ub)):
        return True  # a single character each ("Index - +" / "Index - X")
    # Names are short: two edits make a typo there, whatever the token's length (a long
    # identifier in a name, "FailableBooleanSupplier", differs from its sibling's by a word).
    return bool(_telling(dict.fromkeys(ua, 1), ub, _tokens(a)[0], long=False)
                and _telling(dict.fromkeys(ub, 1), ua, _tokens(b)[0], long=False))


def named_things(a: str, b: str) -> list[str]:
    """The names of things ``a`` uses twice or more inside its sentences — capitalised words
    after a small letter, a digit or a punctuation mark ("select the Illustration Index") —
    that ``b`` never names and uses less often than ``a`` names them — or, for a word among
    ``a``'s first :data:`NAME_HEAD` tokens, its head ("The following options are available
    when you select the Illustration Index"), less often than ``a`` uses the word,
    so that an example elsewhere ("Illustration 24: The Sun") does not hide it — nor writes as
    two words or in a compound (:func:`_compound`), leaving out those within
    :data:`TYPO_EDITS` letters replaced of such a word of ``b`` ("Gray" / "Grey").

    >>> a = "Select the Illustration Index. Use the Illustration Index for images."
    >>> b = "Select the Index of Tables. Use the Index of Tables for tables."
    >>> named_things(a, b), named_things(b, a)
    (['illustration'], ['tables'])
    """
    mine, theirs = _named(a), _named(b)
    ta, tb = _tokens(a)[0], _tokens(b)[0]
    head = {t.casefold() for t in _token_list(a)[:NAME_HEAD]}
    lacking = [w for w, n in mine.items()
               if n >= 2 and not theirs[w] and (tb[w] < n or (w in head and tb[w] < ta[w]))
               and not _compound(w, tb, ta)]
    others = [w for w in theirs if not mine[w] and ta[w] < theirs[w]]
    return [w for w in lacking
            if not _typo(w, [o for o in others if len(o) == len(w)], long=False)]


def _forms_of_each_other(ours: list[str], theirs: list[str]) -> bool:
    """Whether the things each of two pages names and the other does not (:func:`named_things`)
    are one page's words in other forms (:func:`stem`): "Cell Contents" / "Cell Content" name
    one thing; "Index of Tables" / "Table of Objects" two ("Objects" is no form of a word of
    the other page).

    >>> _forms_of_each_other(["contents"], ["content"])
    True
    >>> _forms_of_each_other(["tables"], ["table", "objects"])
    False
    """
    return {stem(w) for w in ours} == {stem(w) for w in theirs}


def _compound(word: str, other: Counter[str], mine: Counter[str]) -> bool:
    """Whether ``word`` stands in the other page's tokens (``other``) as two words ("Gluepoints"
    / "Glue Points", "ImageMap" / "Image Map") or as part of a compound whose other part is a
    token of ``word``'s page (``mine``: "Glue" / "Gluepoints" where "points" is used too)."""
    if any(word[:i] in other and word[i:] in other for i in range(2, len(word) - 1)):
        return True
    n = len(word)
    return any(len(t) > n + 1 and ((t.startswith(word) and t[n:] in mine)
                                  or (t.endswith(word) and t[:-n] in mine)) for t in other)


@lru_cache(maxsize=512)
def _named(text: str) -> Counter[str]:
    return Counter(w.casefold() for w in _NAME_WORD.findall(text))


def subject_differs(a: str, b: str) -> bool:
    """Whether pages ``a`` and ``b`` are about different subjects, once written in one spelling
    (:func:`one_spelling`): either has a subject word the other lacks (:func:`subject_words`),
    their names differ by a substitution (:func:`name_differs`), each names things the other
    never does (:func:`named_things`: "Illustration Index" / "Index of Tables"; not when these
    are one word in two forms, "Cell Contents" / "Cell Content"), each has lines
    of its own (:func:`own_differs`), or each uses
    identifiers the other lacks, together at least :data:`MIN_IDENTIFIER_USES` times, or twice
    on two pages of at most :data:`REPEAT_WORDS` words (:func:`identifier_words`: two source
    files of one template, two classes of one family, two index pages of one member each).

    >>> subject_differs("Flip Horizontally: flip horizontally; it flips horizontally, "
    ...                 "horizontally only.", "Flip Vertically: flip vertically; it flips "
    ...                 "vertically, vertically only.")
    True
    >>> subject_differs("COLOUR\\n\\nReturns a colour: =COLOUR(1;2;3). See COLOUR.",
    ...                 "COLOR\\n\\nReturns a color: =COLOR(1;2;3). See COLOR.")
    False
    """
    a, b = one_spelling(a), one_spelling(b)
    if subject_words(a, b) or subject_words(b, a) or name_differs(a, b):
        return True
    things = named_things(a, b)
    if things:
        others = named_things(b, a)
        if others and not _forms_of_each_other(things, others):
            return True
    if own_differs(a, b):
        return True
    ours, theirs = identifier_words(a, b), identifier_words(b, a)
    need = 2 if _short(a) and _short(b) else MIN_IDENTIFIER_USES
    if not (ours and theirs) or sum(ours.values()) + sum(theirs.values()) < need:
        return False
    # An identifier used once, a typo of a token of the other page, is an edit.
    (ta, _, pa), (tb, _, pb) = _tokens(a), _tokens(b)

    def parts(token: str) -> tuple[str, ...]:
        x, y = pa.get(token, (token,)), pb.get(token, (token,))
        return x if len(x) >= len(y) else y

    telling_a, telling_b = _telling(ours, tb, ta, parts=parts), _telling(theirs, ta, tb, parts=parts)
    # ... unless the same edit runs through several of them: a rename.
    renamed = _renamed([t for t in ours if t not in telling_a],
                       [u for u in theirs if u not in telling_b])
    ours = {t: n for t, n in ours.items() if t in telling_a or t in renamed}
    theirs = {u: n for u, n in theirs.items() if u in telling_b or u in renamed}
    return bool(ours and theirs) and sum(ours.values()) + sum(theirs.values()) >= need


def _edit(t: str, u: str) -> tuple[str, str]:
    """What two tokens write differently: each without the start and the end they share.

    >>> _edit("graphene_vec2_t", "graphene_vec3_t"), _edit("equalsbuilder", "equalsbuidler")
    (('2', '3'), ('ld', 'dl'))
    """
    start = len(os.path.commonprefix([t, u]))
    end = 0
    while end < min(len(t), len(u)) - start and t[-1 - end] == u[-1 - end]:
        end += 1
    return t[start:len(t) - end], u[start:len(u) - end]


def _renamed(ours: list[str], theirs: list[str]) -> set[str]:
    """The identifiers of ``ours`` and ``theirs`` (each page's, the other lacks, typos of a
    token of the other page) that are one of :data:`RENAMED` or more pairs, one of each,
    within :data:`TYPO_EDITS` edits by the same edit (:func:`_edit`): one name replaced
    through the page ("vec2" / "vec3" in ``gsk_gl_shader_get_arg_vec2``, ``graphene_vec2_t``
    and ``vec2``: the pages of two members of one family), where a copy's typos are each
    another edit.

    >>> sorted(_renamed(["get_arg_vec2", "graphene_vec2_t"], ["get_arg_vec3", "graphene_vec3_t"]))
    ['get_arg_vec2', 'get_arg_vec3', 'graphene_vec2_t', 'graphene_vec3_t']
    >>> _renamed(["equalsbuidler", "reflectionequals"], ["equalsbuilder", "reflectionequlas"])
    set()
    """
    if len(ours) < RENAMED or len(theirs) < RENAMED:
        return set()
    by_edit: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for t in ours:
        for u in theirs:
            if abs(len(t) - len(u)) <= TYPO_EDITS and _within(t, u, TYPO_EDITS):
                by_edit.setdefault(_edit(t, u), []).append((t, u))
    out: set[str] = set()
    for pairs in by_edit.values():
        if len({t for t, _ in pairs}) >= RENAMED and len({u for _, u in pairs}) >= RENAMED:
            out.update(itertools.chain.from_iterable(pairs))
    return out


def _short(text: str) -> bool:
    """Whether a page is of at most :data:`REPEAT_WORDS` words (:func:`_length`)."""
    return _length(text) <= REPEAT_WORDS


# Where a sentence ends: after a full stop, a question or exclamation mark, a semicolon or a
# colon and white space (_STOP), or after a CJK full stop, question or exclamation mark or
# semicolon (_CJK_STOP).
_STOP = r"[.!?;:\u3002\uff01\uff1f\uff1b\uff1a]"
_CJK_STOP = r"[\u3002\uff01\uff1f\uff1b]"
_SENTENCE_END = regex.compile(rf"(?<={_STOP})\s+|(?<={_CJK_STOP})")
# Where a stripped line holds more than one sentence: a place _SENTENCE_END splits at, but for
# the end of the line.
_SENTENCE_BREAK = regex.compile(rf"{_STOP}\s|{_CJK_STOP}.")
# A word of a line for :func:`own_lines`: a token or a CJK character.
_LINE_WORD = regex.compile(f"{_TOKEN.pattern}|{_CJK.pattern}")


def _bag(text: str) -> frozenset[str]:
    """The words of ``text``: its tokens, casefolded, and its CJK characters."""
    return frozenset(_LINE_WORD.findall(text.casefold()))


# The line caches keep the last 64 texts: a page is compared with its candidates one by one.
@lru_cache(maxsize=64)
def _lines(text: str) -> tuple[str, ...]:
    """The lines of ``text`` that have a word, stripped."""
    return tuple(line for line in map(str.strip, text.split("\n")) if _LINE_WORD.search(line))


@lru_cache(maxsize=64)
def _line_set(text: str) -> frozenset[str]:
    return frozenset(_lines(text))


@lru_cache(maxsize=64)
def _passages(text: str) -> tuple[frozenset[str], ...]:
    """The words (:func:`_bag`) of every line of ``text`` and of every sentence of at least
    :data:`SENTENCE_WORDS` words in it, each set of words once."""
    out = set()
    for line in _lines(text):
        out.add(_bag(line))
        parts = _SENTENCE_END.split(line)
        if len(parts) > 1:
            out.update(words for words in map(_bag, parts) if len(words) >= SENTENCE_WORDS)
    return tuple(out)


def _shares(s: frozenset[str], t: frozenset[str]) -> bool:
    """Whether ``t`` holds half of ``s``'s words or more."""
    return len(s & t) * 2 >= len(s)


def own_lines(a: str, b: str, limit: int = 0) -> list[int]:
    """The lines of ``a`` (numbered as :func:`_lines` lists them) that are its own: a line that
    is one sentence of at least :data:`SENTENCE_WORDS` words and shares under half its words with
    every line and every sentence of ``b``. A template's lines, a sentence moved or split across
    lines, a sentence with a word changed: none is a page's own. ``limit``: the first that many
    (0: all). A line is compared with :data:`OWN_COMPARISONS` lines and sentences of ``b`` at
    most, all of ``a``'s lines together; past that, the lines left are taken for ``b``'s (two
    pages of thousands of lines each changed and moved are judged on their first lines).

    >>> own_lines("Colours\\nPicks the colour of the text.\\nSaves the file under a new name.",
    ...           "Colours\\nPicks the colour of the text and its frame.")
    [2]
    """
    theirs, ours = _line_set(b), _line_set(a)
    others = _lines(b)
    changed: list[frozenset[str]] | None = None
    passages: tuple[frozenset[str], ...] = ()
    out: list[int] = []
    budget = OWN_COMPARISONS
    for i, line in enumerate(_lines(a)):
        if line in theirs or _SENTENCE_BREAK.search(line):
            continue
        words = _bag(line)
        if len(words) < SENTENCE_WORDS or line in b:
            continue
        # most often the line's counterpart is the line of b at its place, or another that a lacks
        if i < len(others) and _shares(words, _bag(others[i])):
            continue
        if changed is None:
            changed = [_bag(other) for other in others if other not in ours]
        budget -= len(changed)
        if budget < 0:
            break
        if any(_shares(words, other) for other in changed):
            continue
        passages = passages or _passages(b)
        budget -= len(passages)
        if budget < 0:
            break
        if not any(_shares(words, p) for p in passages):
            out.append(i)
            if len(out) == limit:
                break
    return out


def own_differs(a: str, b: str) -> bool:
    """Whether each of pages ``a`` and ``b`` has lines of its own (:func:`own_lines`), more than
    :data:`OWN_LINES` together, or one each not at the same place: two menu pages of one help
    site, each listing its own commands under one template. One page alone adding lines (a
    copy with a paragraph added) is not two subjects; nor is one line each reworded in place,
    after lines that share half their words both ways (a twin in another English).

    >>> insert = "Insert Menu\\nAdds a chart to the document.\\nPuts a frame around the text.\\nHelp"
    >>> form = "Format Menu\\nChanges the font of the selection.\\nSets the spacing of lines.\\nHelp"
    >>> own_differs(insert, form), own_differs(insert, insert + "\\nOpens the gallery of shapes.")
    (True, False)
    >>> own_differs("Colour\\nClick here to pick a new colour.\\nHelp",
    ...             "Colour\\nSelect the shade you prefer in this dialog.\\nHelp")
    False
    """
    ours = own_lines(a, b, OWN_LINES + 1)
    theirs = own_lines(b, a, OWN_LINES + 1) if ours else []
    if not theirs:
        return False
    if len(ours) + len(theirs) > OWN_LINES:
        return True
    # one line each: reworded in place when the lines before them share half their words
    i, j = ours[0], theirs[0]
    if not (i and j):
        return bool(i or j)
    before_a, before_b = _bag(_lines(a)[i - 1]), _bag(_lines(b)[j - 1])
    return not (_shares(before_a, before_b) and _shares(before_b, before_a))


# British spellings and the American form they are written in for :func:`spelling_variants`
# (word endings; a stem of two or three letters at least, so "four", "your", "vogue" stay; the
# stem's letters after the first are small: words in capitals are left alone). ``re``, not
# ``regex``: twice as fast on this pattern.
_L = r"[^\W\d_]"
_VARIANTS = re.compile(
    # what every ending below holds, looked for once a word (2.5 times as fast as trying each)
    r"\b(?=" + _L + r"[a-z]*(?:our|[iy]s|ogue|tre|ll|ce))"
    r"(?:(?P<our>" + _L + r"[a-z]+)our(?P<our_end>s|ed|ing|ite|ites|able|ful|less)?"
    r"|(?P<ise>" + _L + r"[a-z]{2,})(?P<is_y>[iy])s(?P<ise_end>e|es|ed|ing|ation|ations|er|ers)"
    r"|(?P<ogue>" + _L + r"[a-z]{2,})ogue(?P<ogue_end>s)?"
    r"|(?P<tre>" + _L + r"[a-z]{2,})tre(?P<tre_end>s)?"
    r"|(?P<ll>" + _L + r"[a-z]*[aeiou])ll(?P<ll_end>ed|ing|er|ers)"
    r"|(?P<ence>[Ll]icen|[Dd]efen|[Oo]ffen)ce(?P<ence_end>s)?)\b"
)


def _american(m: re.Match[str]) -> str:
    g = m.group
    if g("our") is not None:
        return g("our") + "or" + (g("our_end") or "")
    if g("ise") is not None:
        return g("ise") + g("is_y") + "z" + g("ise_end")
    if g("ogue") is not None:
        return g("ogue") + "og" + (g("ogue_end") or "")
    if g("tre") is not None:
        return g("tre") + "ter" + (g("tre_end") or "")
    if g("ll") is not None:
        return g("ll") + "l" + g("ll_end")
    return g("ence") + "se" + (g("ence_end") or "")


@lru_cache(maxsize=512)
def _british(text: str) -> frozenset[str]:
    """The case-folded American forms of the words of ``text`` written with a British ending
    (or with an ending that has another form: "otherwise"). Kept for the last texts seen."""
    return frozenset(_american(m).casefold() for m in _VARIANTS.finditer(text))


# "dialogue box" is how British software English says "dialog".
_DIALOGUE_BOX = re.compile(r"\b([Dd])ialogue (?:[Bb]ox(es)?|BOX(ES)?)\b")
# A hyphen inside a word: "Sub-menu" / "Submenu", "3-D" / "3D", "X-Y" / "XY" are one word.
# (The hyphen first: the search looks for it alone, thirty times as fast as for what is around it.)
_HYPHENATED = re.compile(r"-(?<=[^\W_]-)(?=[^\W_])")
_BRITISH_PART = re.compile(r"our|is|ys|ogue|tre|ll|ence", re.IGNORECASE)


def _one_token(token: str) -> str:
    """A token written the American way: a British ending of a word in capitals or of a part of
    an identifier ("COLOUR", "colourNumber", "STANDARDISE") too."""
    if token.islower() or not _BRITISH_PART.search(token):
        return token
    out = []
    for part in _PART_BREAK.split(token):
        if part.isupper() and len(part) > 1:
            out.append(_VARIANTS.sub(_american, part.lower()).upper())
        else:
            out.append(_VARIANTS.sub(_american, part))
    seps = _PART_BREAK.findall(token)
    return "".join(p + (seps[i] if i < len(seps) else "") for i, p in enumerate(out))


@lru_cache(maxsize=512)
def one_spelling(text: str) -> str:
    """``text`` with British spellings written the American way (:func:`spelling_variants`),
    in words, in words written in capitals and in the parts of identifiers, "dialogue box"
    written "dialog", and words joined by a hyphen written as one ("sub-menu", "3-D"). Kept
    for the last texts seen.

    >>> one_spelling("Organise the colourNumber in the Colours dialogue box: =COLOUR(1).")
    'Organize the colorNumber in the Colors dialog: =COLOR(1).'
    >>> one_spelling("Opens a sub-menu of 3-D shapes - see X-Y charts.")
    'Opens a submenu of 3D shapes - see XY charts.'
    """
    text = _HYPHENATED.sub("", text)
    if "ialogue" in text:
        text = _DIALOGUE_BOX.sub(lambda m: m.group(1) + "ialog" + ("s" if m.group(2) or m.group(3)
                                                                    else ""), text)
    text = _VARIANTS.sub(_american, text)
    # Only the tokens that change are replaced: most texts have none (their words were written
    # the American way by the line above), and the text and its tokens are then kept as they are.
    changed = {}
    # (a token in small letters is as the line above left it)
    for t in itertools.filterfalse(str.islower, set(_token_list(text))):
        american = _one_token(t)
        if american != t:
            changed[t] = american
    if not changed:
        return text
    return _TOKEN.sub(lambda m: changed.get(m.group(), m.group()), text)


def spelling_variants(a: str, b: str) -> tuple[str, str] | None:
    """``a`` and ``b`` in one spelling — British endings written the American way ("colour",
    "organise", "dialogue", "centre", "travelled", "licence") — when one page writes a word
    the other way ("colour" in ``a``, "color" in ``b``); None otherwise. Words written in
    capitals are left as they are.

    >>> spelling_variants("Organise the colours.", "Organize the colors.")
    ('Organize the colors.', 'Organize the colors.')
    >>> spelling_variants("Colour it.", "Colour it.") is None
    True
    """
    wa, wb = _british(a), _british(b)
    if not (wa or wb):
        return None
    ta, tb = _tokens(a)[0], _tokens(b)[0]
    if not (any(w in tb for w in wa - wb) or any(w in ta for w in wb - wa)):
        return None
    return one_spelling(a), one_spelling(b)

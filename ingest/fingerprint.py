"""Sentence fingerprints (step 1 of the method, §4.2 of Huang, Wang & Li 2007).

For one document:

1. split the text into sentences and take each sentence's *key* — casefolded, letters and
   digits only (:mod:`neardup.ingest.sentences`); cut a key wider than :data:`CHUNK_ABOVE` into
   content-defined chunks (:func:`chunk_key`); keep the distinct keys (chunks) wider than X
   (width, GBK-equivalent units, :mod:`neardup.verifier.units`);
2. take the MD5 digest of each key's spelling form (UTF-8; vowels dropped, ``z`` as ``s``, a
   consonant run once: :func:`neardup.ingest.sentences.spelling_form`, so "colour" and "color"
   meet; widths stay the key's) and put it in bucket ``int(digest) mod m``;
3. in every bucket, take the Y keys with the smallest digests; when there are Y of them and
   together they cover more than Z, combine their digests (smallest first) into one 128-bit
   fingerprint (:func:`combine`);
4. rotate every digest left by one byte — which moves sentences to other buckets and reorders
   them — and repeat, 16 times in all: at most ``16 * m`` fingerprints (112 with m = 7).

Two documents that share one fingerprint share Y sentences of some weight and are *possibly
similar* (candidates for the LCS verification of steps 2 and 3).

Fingerprints are keyword terms: the 16 bytes in unpadded base64url, 22 ASCII characters (hex
would take 32; all 128 bits are kept so that distinct sentence sets never meet by accident, even
across billions of terms). A document with no fingerprint (too little text) is still indexed; it
can only meet its exact copies, through :func:`body_hash` (see :func:`index_terms` and
docs/fingerprints.md).

Two implementations give identical output: the compiled one (:mod:`neardup.ingest._fingerprint`,
used when built) and the plain-Python reference (:mod:`neardup.ingest._fingerprint_py`), which
take a config's numbers. ``NEARDUP_IMPL=python|cython`` forces one, as for every twin
(:func:`neardup.verifier.implementation.select`); forcing ``cython`` without the built extension
is an error.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from types import ModuleType

import regex

from neardup.ingest import _fingerprint_py as _reference
from neardup.ingest.chrome import ChromeRule
from neardup.ingest.errors import ConfigError
from neardup.ingest.sentences import normalize_text, sentence_keys, spelling_form, width
from neardup.verifier.implementation import select

COMPILED = "neardup.ingest._fingerprint"
REFERENCE = "neardup.ingest._fingerprint_py"

# The twin in use (``NEARDUP_IMPL``), chosen once, at import. The reference's helpers without a
# compiled form (chunk_key, combine) are used from it whichever runs.
_impl: ModuleType = select(COMPILED, REFERENCE)
IMPLEMENTATION: str = _impl.IMPLEMENTATION

__all__ = [
    "IMPLEMENTATION",
    "BODY_HASH_PREFIX",
    "NAME_PREFIX",
    "PAPER",
    "PROFILES",
    "FingerprintConfig",
    "body_hash",
    "chunk_key",
    "fingerprints",
    "combine",
    "fingerprint_impl",
    "fingerprints_of_keys",
    "index_terms",
    "name_term",
]

SCHEME = 6  # bump when the fingerprint computation (or the index terms) changes in any way
BODY_HASH_PREFIX = "b:"  # ':' is not in the base64url alphabet: never equals a fingerprint
NAME_PREFIX = "n:"  # the name term of a short page (:func:`name_term`)
NAME_WORDS = 12  # the longest first block taken for a page's name (words)
SHORT_PAGE_WORDS = 150  # a page of at most this many words gets a name term
_DIGEST = 16  # MD5 digest size in bytes: also the number of possible rotations


@dataclass(frozen=True, slots=True)
class FingerprintConfig:
    """Fingerprint parameters (paper names in brackets). Frozen; validated on creation.

    ``str(config)`` and :attr:`identity` encode every parameter, e.g. ``s5-x10-y2-z50-m7-r16``;
    the identity is stored with each document so fingerprints made with different parameters
    are never compared. ``chrome`` is the rule the text was masked with before it was
    fingerprinted (:class:`neardup.ingest.chrome.ChromeRule`; ``neardup dedup`` masks plain-text
    pages), appended as ``+`` and its identity (``s5-x10-y2-z50-m7-r16+chrome4-t20-...``): pages
    masked and not masked, or masked by other rules, are never compared either.
    """

    min_sentence: int = 10  # [X] keep sentences whose width is > X
    per_bucket: int = 2  # [Y] sentences per fingerprint (paper: 4; docs/fingerprints.md)
    min_cover: int = 50  # [Z] the Y sentences' total width must be > Z (paper: 100)
    buckets: int = 7  # [m] buckets per rotation
    rotations: int = 16  # byte rotations of the digests (16 = all)
    chrome: ChromeRule | None = None  # chrome lines masked by this rule before fingerprinting

    def __post_init__(self) -> None:
        for name in ("min_sentence", "per_bucket", "min_cover", "buckets", "rotations"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise ConfigError(f"FingerprintConfig.{name} must be an int, got {value!r}")
        if self.min_sentence < 0 or self.min_cover < 0:
            raise ConfigError("FingerprintConfig.min_sentence and min_cover must be >= 0")
        if self.per_bucket < 1:
            raise ConfigError("FingerprintConfig.per_bucket (Y) must be >= 1")
        if not 1 <= self.buckets <= 1024:
            raise ConfigError(
                f"FingerprintConfig.buckets (m) must be in 1..1024, got {self.buckets}"
            )
        if not 1 <= self.rotations <= _DIGEST:
            raise ConfigError(
                f"FingerprintConfig.rotations must be in 1..{_DIGEST} (an MD5 digest has "
                f"{_DIGEST} bytes), got {self.rotations}"
            )
        if self.chrome is not None and not isinstance(self.chrome, ChromeRule):
            raise ConfigError(f"FingerprintConfig.chrome must be a ChromeRule, got {self.chrome!r}")

    @property
    def identity(self) -> str:
        base = (
            f"s{SCHEME}-x{self.min_sentence}-y{self.per_bucket}-z{self.min_cover}"
            f"-m{self.buckets}-r{self.rotations}"
        )
        return base if self.chrome is None else f"{base}+{self.chrome.identity}"

    @property
    def max_fingerprints(self) -> int:
        return self.rotations * self.buckets

    def __str__(self) -> str:
        return self.identity

    @classmethod
    def from_identity(cls, identity: str) -> FingerprintConfig:
        """Inverse of :attr:`identity`; rejects other schemes.

        >>> c = FingerprintConfig(chrome=ChromeRule(min_pages=30))
        >>> FingerprintConfig.from_identity(c.identity) == c
        True
        """
        numbers, plus, masked = identity.partition("+")
        try:
            parts = {p[0]: int(p[1:]) for p in numbers.split("-")}
            chrome = ChromeRule.from_identity(masked) if plus else None
        except (ValueError, IndexError):
            raise ConfigError(f"not a fingerprint config identity: {identity!r}") from None
        if parts.get("s") != SCHEME or set(parts) != set("sxyzmr"):
            raise ConfigError(
                f"fingerprint config {identity!r} is not of scheme s{SCHEME} "
                "(recompute the fingerprints)"
            )
        return cls(parts["x"], parts["y"], parts["z"], parts["m"], parts["r"], chrome)


#: The paper's values for web pages: X > 10, Y = 4, Z > 100, m = 7 (<= 112 fingerprints).
PAPER = FingerprintConfig(min_sentence=10, per_bucket=4, min_cover=100, buckets=7)

PROFILES: dict[str, FingerprintConfig] = {
    # Web pages: the paper's X and m, Y = 2 sentences covering > 50 (25 CJK characters), the
    # fingerprints taken from the main content of a page (neardup.ingest.extract.document_texts). Y = 4
    # misses near-duplicates whose small edits are spread over many paragraphs; Y = 2 on the
    # full text fills the top-k with pages sharing only a site template. Measured in
    # docs/fingerprints.md ("Candidate coverage").
    "web": FingerprintConfig(),
    # Microblogs (<= 140 characters, so width <= 280 and a handful of sentences; seed 003:
    # k = 5 buckets, <= 80 fingerprints). Y = 4 would need ~20 sentences to fill a bucket, so
    # Y = 2 sentences wider than 8 (4 CJK characters) that together cover > 30 (~15 CJK
    # characters, about a tenth of a full microblog). See docs/fingerprints.md.
    "short": FingerprintConfig(min_sentence=8, per_bucket=2, min_cover=30, buckets=5),
}
# The verifier's precision-first profile decides web pages more strictly; their candidates are
# the web profile's.
PROFILES["precise"] = PROFILES["web"]


# --- public functions ------------------------------------------------------------------------


def fingerprints(
    text: str, config: FingerprintConfig = PROFILES["web"], *, normalized: bool = False
) -> list[str]:
    """The fingerprints of ``text``: at most ``16 * m`` distinct 22-character keyword terms.

    Deterministic, in order of rotation then bucket. ``len(result)`` is the document's
    fingerprint count (the paper orders documents by it when grouping). ``normalized`` is
    accepted for callers that already hold :func:`neardup.ingest.sentences.normalize_text` output
    (the result is the same either way).

    >>> len(fingerprints("too short")), len(FingerprintConfig().identity)
    (0, 20)
    """
    found: list[str] = _impl.fingerprints(text, *_numbers(config))
    return found


def fingerprints_of_keys(keys: Iterable[str], config: FingerprintConfig) -> list[str]:
    """Fingerprints from sentence keys (:func:`neardup.ingest.sentences.sentence_keys`); the reference."""
    found: list[str] = _reference.fingerprints_of_keys(keys, *_numbers(config))
    return found


def _numbers(config: FingerprintConfig) -> tuple[int, ...]:
    """What the twins take: the config's X, Y, Z, m and rotations, and the chunking's."""
    return (config.min_sentence, config.per_bucket, config.min_cover, config.buckets,
            config.rotations, CHUNK_ABOVE, CHUNK_MIN, CHUNK_MAX, CHUNK_DIV)


# Long runs without sentence punctuation (navigation-like text, tables, pages whose
# punctuation was lost in extraction) are cut into chunks at content-defined points, so that one
# edit inside such a run changes one chunk, not the whole run. Scheme constants (widths).
CHUNK_ABOVE = 320  # a key wider than this is cut into chunks
CHUNK_MIN = 24  # no cut before a chunk is this wide
CHUNK_MAX = 160  # a cut wherever a chunk reaches this width
CHUNK_DIV = 32  # a cut where the hash of the last three characters is 0 mod this


def chunk_key(key: str) -> list[tuple[str, int]]:
    """``key`` as ``[(piece, width)]``: itself when it is at most :data:`CHUNK_ABOVE` wide, else
    its content-defined chunks (:func:`neardup.ingest._fingerprint_py.chunk_key`, with
    :data:`CHUNK_MIN`, :data:`CHUNK_MAX` and :data:`CHUNK_DIV`).

    >>> [w for _, w in chunk_key("a" * 30)], sum(w for _, w in chunk_key("ab" * 400))
    ([30], 800)
    """
    pieces: list[tuple[str, int]] = _reference.chunk_key(key, CHUNK_ABOVE, CHUNK_MIN, CHUNK_MAX,
                                                         CHUNK_DIV)
    return pieces


combine = _reference.combine  # a bucket's fingerprint from its sentences' digests


def body_hash(text: str, *, normalized: bool = False, min_sentence: int = 10) -> str:
    """``"b:"`` + base64url MD5 of the document's sentence keys: the exact-copy term.

    A keyword term that lets copies meet when they have no fingerprint (very short documents).
    It hashes the keys (:func:`neardup.ingest.sentences.sentence_keys`, one per line) of the sentences
    wider than ``min_sentence`` (X) — or of all sentences when none is — so, like the
    fingerprints, it ignores white space, punctuation, markup, case and width forms, and a
    short heading or label ("Note") next to the text. Text without any letter or digit hashes
    its normalised form with all white space removed. ``normalized`` is accepted for callers
    holding :func:`neardup.ingest.sentences.normalize_text` output (the result is the same).

    >>> body_hash("Hello  world") == body_hash("Hello\\nworld ") == body_hash("Ｈｅｌｌｏ, world!")
    True
    """
    keys = sentence_keys(text)
    wide = [k for k in keys if width(k) > min_sentence] or keys
    if wide:
        data = "\n".join(spelling_form(k) for k in wide)
    else:
        data = "".join((text if normalized else normalize_text(text)).split())
    digest = hashlib.md5(data.encode("utf-8")).digest()
    return BODY_HASH_PREFIX + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def name_term(text: str) -> str | None:
    """``"n:"`` + base64url MD5 of the spelling form of a short page's name, or None.

    A page of at most :data:`SHORT_PAGE_WORDS` words that opens with a block of at most
    :data:`NAME_WORDS` words followed by more text (a title or heading: HTML content opens
    with the page's title, :func:`neardup.ingest.extract.content.named`) is named by that
    block. A short page has few sentences, and one word changed in each (a British variant's
    "dialogue box" for "dialog") leaves it no fingerprint in common with its twin; the name,
    hashed in its spelling form ("Customise", "Customize"), still makes them candidates.

    >>> name_term("Customize\\n\\nOpens the dialog.") == name_term("Customise\\n\\nOpens it.")
    True
    >>> name_term("One block only."), name_term("Name\\n\\n" + "word " * 200)
    (None, None)
    >>> name_term("一月一日社论，新年献词。\\n\\n" + "人民日报评论员文章。" * 20) is None
    True
    """
    head, sep, rest = text.lstrip().partition("\n\n")
    if not sep or not rest.strip():
        return None
    words = _word_count(head)
    if words > NAME_WORDS or words + _word_count(rest) > SHORT_PAGE_WORDS:
        return None
    keys = sentence_keys(head)
    if not keys:
        return None
    data = spelling_form("".join(keys))
    digest = hashlib.md5(data.encode("utf-8")).digest()
    return NAME_PREFIX + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


# A word: a run of letters, digits and marks, or one character of a script written without
# spaces between its words (Chinese, Japanese), which counts as one.
_WORD = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}]|[^\s\p{Han}\p{Hiragana}\p{Katakana}]+")


def _word_count(text: str) -> int:
    """How many words ``text`` has: white-space separated, each Chinese or Japanese character
    one (a Chinese paragraph is no one-word name).

    >>> _word_count("Opens the dialog."), _word_count("人民日报 社论"), _word_count("PDF 文件")
    (3, 6, 3)
    """
    return len(_WORD.findall(text))


def index_terms(
    text: str, config: FingerprintConfig = PROFILES["web"], *, content: str | None = None
) -> list[str]:
    """The keyword terms to index for a document: its fingerprints, or ``[body_hash]`` if none;
    and the name term of a short page (:func:`name_term`).

    ``content`` is the text to fingerprint when it differs from the stored ``text``: the main
    content of an HTML page without its navigation, header, footer and sidebars
    (:func:`neardup.ingest.extract.document_texts`), so pages of one site template do not share
    fingerprints made of template sentences. The zero-fingerprint rule: the paper drops such
    documents; we keep them, as singletons that still meet their exact copies (same keys).

    Keys and breaks are defined on the raw text (per character; see :mod:`neardup.ingest.sentences`),
    so no whole-text normalisation is done here.
    """
    source = text if content is None else content
    terms = fingerprints(source, config) or [body_hash(source, min_sentence=config.min_sentence)]
    name = name_term(source)
    if name is not None:
        terms.append(name)
    return terms


def fingerprint_impl() -> str:
    """The implementation in use: ``"cython"`` or ``"python"`` (:data:`IMPLEMENTATION`)."""
    return IMPLEMENTATION

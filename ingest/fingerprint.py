"""Sentence fingerprints (step 1 of the method, §4.2 of Huang, Wang & Li 2007).

For one document:

1. normalise and split the text into sentences (:mod:`ingest.sentences`); keep the distinct
   sentences wider than X (width in GBK-equivalent units, :mod:`verifier.units`);
2. take the MD5 digest of each (UTF-8 of the normalised sentence) and put it in bucket
   ``int(digest) mod m``;
3. in every bucket, take the Y sentences with the smallest digests; when there are Y of them and
   together they cover more than Z, hash their digests (MD5 of the concatenation, smallest first,
   128 bits): one fingerprint per bucket;
4. rotate every digest left by one byte — which moves sentences to other buckets and reorders
   them — and repeat, 16 times in all: at most ``16 * m`` fingerprints (112 with m = 7).

Two documents that share one fingerprint share Y sentences of some weight and are *possibly
similar* (candidates for the LCS verification of steps 2 and 3).

Fingerprints are keyword terms: the 16 bytes in unpadded base64url, 22 ASCII characters (hex
would take 32; all 128 bits are kept so that distinct sentence sets never meet by accident, even
across billions of terms). A document with no fingerprint (too little text) is still indexed; it
can only meet its exact copies, through :func:`body_hash` (see :func:`index_terms` and
docs/fingerprints.md).

Two implementations give identical output: a vectorised one over all rotations at once (numpy,
used when importable) and a plain-Python reference. ``NEARDUP_FP_IMPL=python|numpy`` forces one.
"""

from __future__ import annotations

import base64
import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ingest.errors import ConfigError
from ingest.sentences import normalize_text, sentence_texts, width

try:  # numpy comes with the baselines extra (datasketch); the reference path needs nothing.
    import numpy as _np
except ImportError:  # pragma: no cover - exercised only where numpy is absent
    _np = None  # type: ignore[assignment]

__all__ = [
    "BODY_HASH_PREFIX",
    "PROFILES",
    "FingerprintConfig",
    "body_hash",
    "fingerprints",
    "fingerprints_of_sentences",
    "index_terms",
]

SCHEME = 1  # bump when the fingerprint computation changes in any way
BODY_HASH_PREFIX = "b:"  # ':' is not in the base64url alphabet: never equals a fingerprint
_DIGEST = 16  # MD5 digest size in bytes: also the number of possible rotations


@dataclass(frozen=True, slots=True)
class FingerprintConfig:
    """Fingerprint parameters (paper names in brackets). Frozen; validated on creation.

    ``str(config)`` and :attr:`identity` encode every parameter, e.g. ``s1-x10-y4-z100-m7-r16``;
    the identity is stored with each document so fingerprints made with different parameters
    are never compared.
    """

    min_sentence: int = 10  # [X] keep sentences whose width is > X
    per_bucket: int = 4  # [Y] sentences per fingerprint
    min_cover: int = 100  # [Z] the Y sentences' total width must be > Z
    buckets: int = 7  # [m] buckets per rotation
    rotations: int = 16  # byte rotations of the digests (16 = all)

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

    @property
    def identity(self) -> str:
        return (
            f"s{SCHEME}-x{self.min_sentence}-y{self.per_bucket}-z{self.min_cover}"
            f"-m{self.buckets}-r{self.rotations}"
        )

    @property
    def max_fingerprints(self) -> int:
        return self.rotations * self.buckets

    def __str__(self) -> str:
        return self.identity

    @classmethod
    def from_identity(cls, identity: str) -> FingerprintConfig:
        """Inverse of :attr:`identity`; rejects other schemes."""
        try:
            parts = {p[0]: int(p[1:]) for p in identity.split("-")}
        except (ValueError, IndexError):
            raise ConfigError(f"not a fingerprint config identity: {identity!r}") from None
        if parts.get("s") != SCHEME or set(parts) != set("sxyzmr"):
            raise ConfigError(
                f"fingerprint config {identity!r} is not of scheme s{SCHEME} "
                "(recompute the fingerprints)"
            )
        return cls(parts["x"], parts["y"], parts["z"], parts["m"], parts["r"])


PROFILES: dict[str, FingerprintConfig] = {
    # The paper's values for web pages: X > 10, Y = 4, Z > 100, m = 7 (<= 112 fingerprints).
    "web": FingerprintConfig(),
    # Microblogs (<= 140 characters, so width <= 280 and a handful of sentences; seed 003:
    # k = 5 buckets, <= 80 fingerprints). Y = 4 would need ~20 sentences to fill a bucket, so
    # Y = 2 sentences wider than 8 (4 CJK characters) that together cover > 30 (~15 CJK
    # characters, about a tenth of a full microblog). See docs/fingerprints.md.
    "short": FingerprintConfig(min_sentence=8, per_bucket=2, min_cover=30, buckets=5),
}


# --- public functions ------------------------------------------------------------------------


def fingerprints(
    text: str, config: FingerprintConfig = PROFILES["web"], *, normalized: bool = False
) -> list[str]:
    """The fingerprints of ``text``: at most ``16 * m`` distinct 22-character keyword terms.

    Deterministic, in order of rotation then bucket. ``len(result)`` is the document's
    fingerprint count (the paper orders documents by it when grouping). Pass
    ``normalized=True`` when ``text`` is already the output of
    :func:`ingest.sentences.normalize_text`.

    >>> len(fingerprints("too short")), len(FingerprintConfig().identity)
    (0, 21)
    """
    if not normalized:
        text = normalize_text(text)
    return fingerprints_of_sentences(sentence_texts(text), config)


def fingerprints_of_sentences(sentences: Iterable[str], config: FingerprintConfig) -> list[str]:
    """Fingerprints from already split, normalised sentences (see :func:`fingerprints`)."""
    x = config.min_sentence
    chosen: dict[bytes, int] = {}  # digest -> width, distinct sentences in first-seen order
    for s in sentences:
        w = width(s)
        if w > x:
            chosen.setdefault(hashlib.md5(s.encode("utf-8")).digest(), w)
    if len(chosen) < config.per_bucket or sum(chosen.values()) <= config.min_cover:
        return []  # no bucket can ever hold Y sentences covering > Z
    if _IMPL == "numpy":
        digests = _select_numpy(list(chosen), list(chosen.values()), config)
    else:
        digests = _select_python(list(chosen), list(chosen.values()), config)
    return _encode(digests)


def body_hash(text: str, *, normalized: bool = False) -> str:
    """``"b:"`` + base64url MD5 of the normalised text with all whitespace removed.

    A keyword term that lets exact copies meet when they have no fingerprint (very short
    documents); whitespace-insensitive, so re-wrapped copies meet too.

    >>> body_hash("Hello  world") == body_hash("Hello\\nworld ") == body_hash("Ｈｅｌｌｏ world")
    True
    """
    if not normalized:
        text = normalize_text(text)
    digest = hashlib.md5("".join(text.split()).encode("utf-8")).digest()
    return BODY_HASH_PREFIX + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def index_terms(text: str, config: FingerprintConfig = PROFILES["web"]) -> list[str]:
    """The keyword terms to index for a document: its fingerprints, or ``[body_hash]`` if none.

    The zero-fingerprint rule: the paper drops such documents; we keep them, as singletons that
    still meet their exact (whitespace-insensitive) copies.
    """
    text = normalize_text(text)
    return fingerprints(text, config, normalized=True) or [body_hash(text, normalized=True)]


# --- selection: reference implementation ----------------------------------------------------


def _select_python(
    digests: list[bytes], widths: list[int], config: FingerprintConfig
) -> list[bytes]:
    """Fingerprint digests, in order of rotation then bucket (duplicates not yet removed)."""
    m, y, z = config.buckets, config.per_bucket, config.min_cover
    doubled = [d + d for d in digests]
    out: list[bytes] = []
    for r in range(config.rotations):
        per_bucket: list[list[tuple[bytes, int]]] = [[] for _ in range(m)]
        for dd, w in zip(doubled, widths, strict=True):
            rotated = dd[r : r + _DIGEST]
            per_bucket[int.from_bytes(rotated, "big") % m].append((rotated, w))
        for members in per_bucket:
            if len(members) < y:
                continue
            members.sort()
            smallest = members[:y]
            if sum(w for _, w in smallest) > z:
                out.append(hashlib.md5(b"".join(d for d, _ in smallest)).digest())
    return out


# --- selection: vectorised over sentences and rotations ---------------------------------------


def _select_numpy(
    digests: list[bytes], widths: list[int], config: FingerprintConfig
) -> list[bytes]:
    """Same result as :func:`_select_python`, with every rotation handled at once.

    Few, whole-array operations: on a typical page the fixed cost of each numpy call dominates.
    """
    np: Any = _np
    n, m, y, rot = len(digests), config.buckets, config.per_bucket, config.rotations
    bucket_weights, gather = _rotation_tables(m, rot)
    d = np.frombuffer(b"".join(digests), dtype=np.uint8).reshape(n, _DIGEST)
    rotated = d.take(gather, axis=1).reshape(n, rot, _DIGEST)  # digest i rotated left by r bytes
    bucket = (d @ bucket_weights) % m  # (n, rot): int(rotated) mod m, from per-byte residues
    hi = rotated.view(">u8")[..., 0].astype(np.uint64)  # leading 64 bits of the rotated digest
    # Sort each rotation by (bucket, rotated digest) with one argsort on a packed key; its low
    # bits are the leading bits of the digest. Equal packed keys (two sentences of one document
    # agreeing on 54 leading bits) are all but impossible; then fall back to the exact order.
    key = (bucket.astype(np.uint64) << np.uint64(54)) | (hi >> np.uint64(10))
    order = key.argsort(axis=0, kind="stable")
    sorted_key = np.take_along_axis(key, order, axis=0)
    if (sorted_key[1:] == sorted_key[:-1]).any():
        lo = rotated.view(">u8")[..., 1].astype(np.uint64)
        order = np.lexsort((lo, hi, bucket), axis=0)
        sorted_key = np.take_along_axis(key, order, axis=0)
    sorted_bucket = sorted_key >> np.uint64(54)
    # Row i (i >= y-1) closes a full set of the y smallest of its bucket when rows i-y+1..i
    # share the bucket and row i-y (if any) does not.
    full = sorted_bucket[y - 1 :] == sorted_bucket[: n - y + 1]
    full[1:] &= sorted_bucket[y:] != sorted_bucket[: n - y]
    cum = np.zeros((n + 1, rot), dtype=np.int64)
    np.cumsum(np.asarray(widths, dtype=np.int64)[order], axis=0, out=cum[1:])
    full &= (cum[y:] - cum[: n - y + 1]) > config.min_cover
    hit_r, hit_i = np.nonzero(full.T)  # rotation-major; hit_i + y - 1 is the closing row
    if hit_r.size == 0:
        return []
    members = order[hit_i[:, None] + np.arange(y)[None, :], hit_r[:, None]]  # (k, y)
    blocks = rotated[members, hit_r[:, None]].tobytes()  # k * y * 16 bytes, smallest first
    size = y * _DIGEST
    md5 = hashlib.md5
    return [md5(blocks[i : i + size]).digest() for i in range(0, len(blocks), size)]


@lru_cache(maxsize=32)
def _rotation_tables(m: int, rotations: int) -> tuple[Any, Any]:
    """``weights[j, r] = 256**(15 - (j - r) % 16) mod m`` and ``gather[16 r + k] = (r + k) % 16``."""
    np: Any = _np
    weights = np.array(
        [[pow(256, 15 - (j - r) % _DIGEST, m) for r in range(rotations)] for j in range(_DIGEST)],
        dtype=np.int64,
    )
    gather = ((np.arange(rotations)[:, None] + np.arange(_DIGEST)[None, :]) % _DIGEST).ravel()
    return weights, gather


def _encode(digests: list[bytes]) -> list[str]:
    """Unpadded base64url of each 16-byte digest, duplicates dropped, order kept."""
    if not digests:
        return []
    # One b64 call for all: a 16-byte digest padded with 2 zero bytes encodes to 24 characters
    # whose first 22 are the digest's own unpadded encoding.
    encoded = base64.urlsafe_b64encode(b"\0\0".join(digests) + b"\0\0").decode("ascii")
    return list(dict.fromkeys(encoded[i : i + 22] for i in range(0, len(encoded), 24)))


def _pick_impl() -> str:
    impl = os.environ.get("NEARDUP_FP_IMPL", "").strip().lower()
    if impl not in ("", "python", "numpy"):
        raise ConfigError(f"NEARDUP_FP_IMPL must be 'python' or 'numpy', got {impl!r}")
    if impl == "numpy" and _np is None:
        raise ConfigError("NEARDUP_FP_IMPL=numpy but numpy is not installed")
    return impl or ("numpy" if _np is not None else "python")


_IMPL = _pick_impl()

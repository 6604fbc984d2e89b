"""Pure-Python reference of the sentence fingerprints (the method of
:mod:`neardup.ingest.fingerprint`, which documents it).

This module is the specification: :mod:`neardup.ingest._fingerprint` (Cython) has the same API
and must give the same results; :mod:`neardup.ingest.fingerprint` picks one of the two
(``NEARDUP_IMPL``) and passes them a config's numbers. Keep both in step.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable

from neardup.ingest.sentences import sentence_keys, spelling_form, width

__all__ = [
    "IMPLEMENTATION",
    "chunk_key",
    "combine",
    "fingerprints",
    "fingerprints_of_keys",
    "md5",
]

IMPLEMENTATION = "python"

_DIGEST = 16  # MD5 digest size in bytes: also the number of possible rotations
_M32 = 0xFFFFFFFF


def md5(data: bytes) -> bytes:
    """The MD5 digest of ``data`` (the compiled twin's is in C)."""
    return hashlib.md5(data).digest()


def fingerprints(text: str, x: int, y: int, z: int, m: int, rotations: int, chunk_above: int,
                 chunk_min: int, chunk_max: int, chunk_div: int) -> list[str]:
    """The fingerprints of ``text`` (:func:`neardup.ingest.fingerprint.fingerprints`): the
    config's numbers ``x`` (min_sentence), ``y`` (per_bucket), ``z`` (min_cover), ``m``
    (buckets) and ``rotations``, and the chunking's (:func:`chunk_key`)."""
    return fingerprints_of_keys(sentence_keys(text), x, y, z, m, rotations, chunk_above,
                                chunk_min, chunk_max, chunk_div)


def fingerprints_of_keys(keys: Iterable[str], x: int, y: int, z: int, m: int, rotations: int,
                         chunk_above: int, chunk_min: int, chunk_max: int,
                         chunk_div: int) -> list[str]:
    """:func:`fingerprints` from sentence keys
    (:func:`neardup.ingest.sentences.sentence_keys`)."""
    chosen: dict[bytes, int] = {}  # digest -> width, distinct keys
    for key in keys:
        for piece, w in chunk_key(key, chunk_above, chunk_min, chunk_max, chunk_div):
            if w > x:
                piece = spelling_form(piece)
                chosen.setdefault(md5(piece.encode("utf-8")), w)
    if len(chosen) < y or sum(chosen.values()) <= z:
        return []  # no bucket can ever hold Y sentences covering > Z
    return _encode(_select(list(chosen), list(chosen.values()), y, z, m, rotations))


def chunk_key(key: str, above: int, least: int, most: int, div: int) -> list[tuple[str, int]]:
    """``key`` as ``[(piece, width)]``: ``[(key, width(key))]`` when it is at most ``above``
    wide; otherwise pieces ending where a chunk reaches ``most``, or is at least ``least`` wide
    and the hash of its last three characters (code points) is 0 mod ``div``; a last piece
    narrower than ``least`` joins the one before. The cut points depend on the text around them
    only, as in content-defined chunking of files, so an insertion or deletion moves no cut far
    from it.

    >>> [w for _, w in chunk_key("a" * 30, 320, 24, 160, 32)]
    [30]
    >>> sum(w for _, w in chunk_key("ab" * 400, 320, 24, 160, 32))
    800
    """
    total = width(key)
    if total <= above:
        return [(key, total)]
    out: list[tuple[str, int]] = []
    start = w = a = b = 0
    for i, ch in enumerate(key):
        c = ord(ch)
        w += width(ch)
        h = ((a * 0x9E3779B1) ^ (b * 0x85EBCA77) ^ (c * 0xC2B2AE3D)) & _M32
        h ^= h >> 15
        h = (h * 0x2C1B3C6D) & _M32
        h ^= h >> 12
        a, b = b, c
        if w >= most or (w >= least and h % div == 0):
            out.append((key[start : i + 1], w))
            start, w = i + 1, 0
    if start < len(key):
        if out and w < least:
            piece, pw = out.pop()
            out.append((piece + key[start:], pw + w))
        else:
            out.append((key[start:], w))
    return out


_MASK = (1 << 128) - 1
# Odd 128-bit multipliers (the first is PCG's 128-bit LCG multiplier) and a non-zero start.
_MUL1 = 0x2360ED051FC65DA44385DF649FCCF645
_MUL2 = 0x5851F42D4C957F2D14057B7EF767814F
_SEED = 0x6A09E667F3BCC908BB67AE8584CAA73B  # fractional bits of sqrt(2), sqrt(3)


def combine(digests: Iterable[bytes]) -> bytes:
    """One 128-bit value from 16-byte digests, in order: the per-bucket fingerprint.

    The paper asks for "a hash value (128 bits)" of the bucket's sentences. Its inputs are MD5
    digests (uniformly spread already), so a fast mix suffices: per digest, XOR it into a
    128-bit state, then multiply by an odd constant and fold the high half into the low half,
    twice. Every step is a bijection of the state, so two member lists that differ only in the
    last digest never collide, and every output bit depends on every input bit.

    >>> combine([bytes(16)]).hex() != combine([bytes(15) + b"\\x01"]).hex()
    True
    """
    x = _SEED
    for d in digests:
        x ^= int.from_bytes(d, "big")
        x = (x * _MUL1) & _MASK
        x ^= x >> 64
        x = (x * _MUL2) & _MASK
        x ^= x >> 64
    return x.to_bytes(16, "big")


def _select(digests: list[bytes], widths: list[int], y: int, z: int, m: int,
            rotations: int) -> list[bytes]:
    """Fingerprint values, in order of rotation then bucket (duplicates not yet removed)."""
    doubled = [d + d for d in digests]
    out: list[bytes] = []
    for r in range(rotations):
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
                out.append(combine(d for d, _ in smallest))
    return out


def _encode(digests: list[bytes]) -> list[str]:
    """Unpadded base64url of each 16-byte digest, duplicates dropped, order kept."""
    if not digests:
        return []
    # One b64 call for all: a 16-byte digest padded with 2 zero bytes encodes to 24 characters
    # whose first 22 are the digest's own unpadded encoding.
    encoded = base64.urlsafe_b64encode(b"\0\0".join(digests) + b"\0\0").decode("ascii")
    return list(dict.fromkeys(encoded[i : i + 22] for i in range(0, len(encoded), 24)))

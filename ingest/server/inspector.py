"""The duplicate-group inspector's data: which groups are largest, *why* members are
duplicates of their representative, and what became of a page.

Pure functions (unit tested on plain dicts and strings): the terms aggregation on
``dup_group`` behind the list of largest groups (:mod:`neardup.ingest.store.query`, asked by
:meth:`neardup.ingest.store.roles.EngineReads.largest_groups`); the split of a text into plain and
highlighted segments around the verifier's trustable LCS region, cut to whole words;
a page's state in words (:func:`page_status`); the snippet of a page's main content; a
stored page, a verdict and a profile's thresholds as JSON (:func:`document_summary`,
:func:`verdict_json`, :func:`thresholds`).
Segments are sent rather than offsets because Python counts code points and JavaScript counts
UTF-16 units: the page never does offset arithmetic, it only writes each segment as text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from neardup.ingest.errors import ConfigError
from neardup.ingest.fingerprint import BODY_HASH_PREFIX, FingerprintConfig
from neardup.ingest.store.base import StoredDocument
from neardup.ingest.store.query import MAX_GROUPS, build_largest_groups_query, parse_largest_groups
from neardup.verifier.config import VerifyConfig

__all__ = [
    "MAX_GROUPS",
    "build_largest_groups_query",
    "document_summary",
    "document_with_status",
    "normalise_spans",
    "page_status",
    "parse_largest_groups",
    "segments",
    "snippet",
    "spans_of",
    "thresholds",
    "too_short",
    "verdict_json",
    "word_aligned",
]

def normalise_spans(spans: Iterable[Sequence[int]] | None, length: int) -> list[tuple[int, int]]:
    """Sorted, clipped, non-overlapping ``(start, end)`` pairs within ``[0, length]``.

    >>> normalise_spans([(5, 9), (0, 3), (2, 4), (8, 99)], 10)
    [(0, 4), (5, 10)]
    """
    clean: list[tuple[int, int]] = []
    for span in spans or ():
        start, end = max(0, int(span[0])), min(length, int(span[1]))
        if start < end:
            clean.append((start, end))
    clean.sort()
    merged: list[tuple[int, int]] = []
    for start, end in clean:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


# A letter or digit of a script that separates words with spaces: a highlight holds whole runs
# of these. Chinese, Japanese and Korean characters are words of their own (no
# widening); ``_`` and ``'`` inside a word belong to it.
_WORD = re.compile(r"[^\W\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


def _is_word(ch: str) -> bool:
    return bool(_WORD.match(ch)) or ch == "'"


def word_aligned(text: str, spans: Iterable[Sequence[int]] | None) -> list[tuple[int, int]]:
    """The spans cut to whole words, without slivers: a span that starts or ends inside a word
    leaves that word out (its other part differs between the pages, so the word is not shared
    as a whole); one left with no letter or digit is dropped; spans apart by white space and
    punctuation alone are merged.

    >>> text = "the inland towns and the coast"
    >>> [text[s:e] for s, e in word_aligned(text, [(5, 15), (15, 16), (16, 20)])]
    ['towns and']
    >>> [text[s:e] for s, e in word_aligned(text, [(4, 10), (11, 16), (28, 30)])]
    ['inland towns']
    >>> cjk = "北京市的天气"
    >>> [cjk[s:e] for s, e in word_aligned(cjk, [(1, 3)])]
    ['京市']
    """
    out: list[tuple[int, int]] = []
    n = len(text)
    for start, end in normalise_spans(spans, n):
        if start > 0 and _is_word(text[start - 1]):
            while start < end and _is_word(text[start]):
                start += 1  # the rest of a word begun before the span
        if end < n and _is_word(text[end]):
            while end > start and _is_word(text[end - 1]):
                end -= 1  # the beginning of a word that goes on after the span
        while start < end and not text[start].isalnum():  # no leading space or punctuation
            start += 1
        while end > start and not text[end - 1].isalnum() and text[end - 1] not in ".!?。！？)」』":
            end -= 1
        if not any(ch.isalnum() for ch in text[start:end]):
            continue  # a sliver of white space or punctuation, or part of one word
        if out and (start <= out[-1][1] or not any(c.isalnum() for c in text[out[-1][1]:start])):
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def segments(
    text: str, spans: Iterable[Sequence[int]] | None, *, words: bool = False
) -> list[dict[str, Any]]:
    """``text`` cut into ``{"text", "mark"}`` pieces; ``mark`` is True inside a span
    (``words``: the spans cut to whole words first, :func:`word_aligned`).

    >>> segments("abcdef", [(1, 3)])
    [{'text': 'a', 'mark': False}, {'text': 'bc', 'mark': True}, {'text': 'def', 'mark': False}]
    >>> [x["text"] for x in segments("inland towns", [(0, 10)], words=True)]
    ['inland', ' towns']
    """
    out: list[dict[str, Any]] = []
    pos = 0
    cut = word_aligned(text, spans) if words else normalise_spans(spans, len(text))
    for start, end in cut:
        if start > pos:
            out.append({"text": text[pos:start], "mark": False})
        out.append({"text": text[start:end], "mark": True})
        pos = end
    if pos < len(text) or not out:
        out.append({"text": text[pos:], "mark": False})
    return out


def snippet(text: str | None, limit: int = 200) -> str:
    """The beginning of ``text`` on one line, at most ``limit`` characters, cut after a word.

    >>> snippet("  The harbour\\n\\n authority confirmed on Monday", 30)
    'The harbour authority …'
    """
    flat = " ".join((text or "").split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:") + " …"


def too_short(fingerprints: Sequence[str]) -> bool:
    """A page whose only term is its body hash: too little text for a fingerprint."""
    return bool(fingerprints) and all(f.startswith(BODY_HASH_PREFIX) for f in fingerprints)


def _fp_rule(fp_config: str | None) -> str:
    try:
        c = FingerprintConfig.from_identity(fp_config or "")
    except ConfigError:
        return "too few long sentences"
    return (f"fewer than {c.per_bucket} distinct sentences wider than {c.min_sentence} "
            f"covering more than {c.min_cover} (the fingerprint profile's Y, X and Z; width: a "
            "CJK character counts 2)")  # fmt: skip


def page_status(
    doc: Mapping[str, Any], fingerprints: Sequence[str], group_size: int | None
) -> dict[str, str]:
    """What became of a page, for people: ``{"state", "explanation"}``.

    ``doc`` is the page's summary (``status``, ``dup_group``, ``dup_of``, ``error``,
    ``fp_config``...), ``fingerprints`` its terms, ``group_size`` the pages of its group.
    ``state`` is one of ``pending``, ``error``, ``too-short`` (no fingerprint: it can only join
    exact copies of its text), ``duplicate``, ``representative`` (of a group of two or more),
    ``singleton`` (no near-duplicate among its candidates).

    >>> page_status({"id": "a", "status": "pending"}, ["x"], None)["state"]
    'pending'
    >>> page_status({"id": "a", "status": "grouped", "dup_group": "a"}, ["b:h"], 1)["state"]
    'too-short'
    >>> page_status({"id": "a", "status": "grouped", "dup_group": "a"}, ["x"], 1)["explanation"]
    'grouped alone: no page among its candidates (pages sharing fingerprints) is a near-duplicate of it'
    """
    status = doc.get("status")
    short = too_short(fingerprints)
    short_note = (f"too short to fingerprint: {_fp_rule(doc.get('fp_config'))}; it can only be "
                  "grouped with exact copies of its text, never with near-duplicates")  # fmt: skip
    if status == "pending":
        text = "waiting for a verification worker (queued; run `neardup worker` if none is)"
        return {"state": "pending", "explanation": text + ("; " + short_note if short else "")}
    if status == "error":
        return {"state": "error",
                "explanation": f"verification failed: {doc.get('error') or 'no reason stored'}; "
                               "the page is its own group"}  # fmt: skip
    group, size = doc.get("dup_group"), group_size or 1
    if short:
        copies = f" (its group holds {size} identical pages)" if size > 1 else ""
        return {"state": "too-short", "explanation": short_note + copies}
    if group is not None and group != doc.get("id"):
        via = f", verified against {doc['dup_of']}" if doc.get("dup_of") else " (groups merged)"
        return {"state": "duplicate",
                "explanation": f"near-duplicate in group {group} of {size} pages{via}"}  # fmt: skip
    if size > 1:
        return {"state": "representative",
                "explanation": f"representative of a group of {size} pages (its earliest)"}
    return {"state": "singleton",
            "explanation": "grouped alone: no page among its candidates (pages sharing "
                           "fingerprints) is a near-duplicate of it"}  # fmt: skip


# -- pages and verdicts as JSON ---------------------------------------------------------------

_SUMMARY_FIELDS = (
    "id", "url", "site", "title", "seq", "dup_group", "dup_of", "resemble", "contain",
    "status", "error", "ingested_at", "grouped_at", "fp_config",
)  # fmt: skip


def document_summary(doc: StoredDocument) -> dict[str, Any]:
    """A stored document without its text and fingerprints, plus ``length`` (code points) and
    ``fingerprint_count`` (0 for a page too short to have a fingerprint)."""
    source = doc.to_source()
    out = {k: source.get(k) for k in _SUMMARY_FIELDS}
    out["length"] = len(doc.body or "")
    out["fingerprint_count"] = sum(
        1 for f in doc.fingerprints if not f.startswith(BODY_HASH_PREFIX)
    )
    return out


def document_with_status(doc: StoredDocument, group_size: int | None) -> dict[str, Any]:
    """:func:`document_summary` plus what became of the page (:func:`page_status`) and a
    snippet of its main content."""
    out = document_summary(doc)
    out.update(page_status(out, doc.fingerprints, group_size))
    out["snippet"] = snippet(doc.verified_text)
    return out


def thresholds(config: VerifyConfig) -> dict[str, Any]:
    """The thresholds the verdict's rates are held against, by the profile's ``decision``:
    ``content`` — word resemble and core resemble, or word containment; ``tlcs`` — the
    paper's TLCS resemble or contain."""
    if config.decision == "content":
        return {"decision": "content", "word_resemble": config.min_word_resemble,
                "core_resemble": config.min_core_resemble,
                "word_contain": config.min_word_contain}  # fmt: skip
    return {"decision": config.decision, "resemble": config.resemble, "contain": config.contain}


def verdict_json(verdict: Any) -> dict[str, Any]:
    """The scores of a ``Verdict`` as JSON, with the ``reason`` for the decision."""
    out: dict[str, Any] = {}
    for name in ("similar", "resemble", "contain", "tlcs", "reason", "word_resemble",
                 "core_resemble", "word_contain"):  # fmt: skip
        value = getattr(verdict, name, None)
        if isinstance(value, float):
            value = round(value, 4)
        out[name] = value
    return out


def spans_of(verdict: Any, side: str) -> list[tuple[int, int]]:
    """The trustable region(s) of one side (``a`` or ``b``) of a ``Verdict``.

    ``a_span``/``b_span`` is the region as ``(start, end)`` offsets into the original text
    (None when there is none); a verdict that found several regions (iterative mode) lists
    them in ``a_spans``/``b_spans``.
    """
    many = getattr(verdict, f"{side}_spans", None)
    if many:
        return [(int(s), int(e)) for s, e in many]
    one = getattr(verdict, f"{side}_span", None)
    if one is None:
        return []
    return [(int(one[0]), int(one[1]))]

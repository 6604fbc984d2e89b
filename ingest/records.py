"""Input records: the one layer that decodes and validates what comes in.

Every path that takes pages — ``neardup compare``, ``dedup``, ``ingest``, ``POST /documents``,
``/_bulk`` and the verification workers — reads its input through this module, so a bad record
gets the same per-record error (its ``type`` and message) wherever it is sent, and nothing but a
:class:`~neardup.ingest.errors.DocumentError` ever comes out of bad input. Three steps:

1. **Framing** (:func:`read_jsonl`, :func:`split_lines`): a JSONL file or body into numbered
   lines. A line over :attr:`Limits.max_record_bytes` is skipped without being held in memory
   (its first bytes still name its id when they can).
2. **Decoding** (:func:`decode_record`, :func:`decode_json`): strict UTF-8 (a leading BOM is
   dropped); nesting at most :attr:`Limits.max_depth` levels, checked *before* parsing (Python's
   parser recurses, and a deep value breaks every later step that walks it: pickling to a
   worker process, ``json.dumps``); then JSON as RFC 8259 has it — no ``NaN``/``Infinity``
   (which would make the output invalid JSON), no duplicate keys (OpenSearch refuses them too),
   no integer literal over 4300 digits (Python's own limit; it raised a ``ValueError`` that
   nothing caught).
3. **Validation** (:func:`validate_page`, :func:`validate_id`): the neardup document — an id,
   one content field, optional ``url``/``site``/``title`` — into a :class:`Page`, or an error
   naming the rule it breaks. Lone surrogates (``"\\ud800"``) are refused in ids and replaced by
   U+FFFD elsewhere: neither can be stored as UTF-8.

The rules and their numbers are the table of ``docs/limits.md``; ``tests/ingest/test_records.py``
holds it against :data:`DEFAULT_LIMITS`. Output JSON (which may echo parts of the input) is
written by :mod:`neardup.ingest.jsoncodec`.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path
from types import ModuleType
from typing import IO, Any

from neardup.ingest._records_py import CONTROL, CONTROL_CHARS, SURROGATE, SURROGATE_CHARS
from neardup.ingest.errors import (
    ConfigError,
    DocumentError,
    DocumentTooLarge,
    EmptyDocument,
    ExtractError,
    InvalidField,
    InvalidRecord,
)
from neardup.ingest.extract import DEFAULT_TIMEOUT, MARKUP_FIELDS
from neardup.ingest.settings import Settings
from neardup.verifier.implementation import select

# The checks of a text's characters: the compiled twin (ingest/_records.pyx) or its reference
# (ingest/_records_py.py, which also holds the patterns), as ``NEARDUP_IMPL`` chooses.
_checks: ModuleType = select("neardup.ingest._records", "neardup.ingest._records_py")
IMPLEMENTATION: str = _checks.IMPLEMENTATION
_text_flags = _checks.text_flags

__all__ = [
    "IMPLEMENTATION",
    "CONTENT_FIELDS",
    "DEFAULT_LIMITS",
    "MAX_BODY_BYTES",
    "MAX_CONTROL_SHARE",
    "METADATA_FIELDS",
    "RECORD_FACTOR",
    "Limits",
    "Page",
    "check_stored",
    "clean_text",
    "decode_json",
    "decode_record",
    "has_surrogates",
    "limits_table",
    "read_jsonl",
    "replace_surrogates",
    "safe_id",
    "split_lines",
    "utf8_size",
    "validate_id",
    "validate_page",
]

# Fields that may carry a page's content, in order of precedence (the first present is read):
# the extractor's, one list for both.
CONTENT_FIELDS = MARKUP_FIELDS
METADATA_FIELDS = ("url", "site", "title")
# A record as sent may be this many times the page limit: JSON escaping (a \uXXXX escape takes 6
# bytes for a 3-byte UTF-8 character) and the other fields.
RECORD_FACTOR = 4
# Share of C0 control characters (other than tab/newline/CR) above which a text is binary junk.
MAX_CONTROL_SHARE = 0.05
# `neardup serve --max-body` default: Logstash's opensearch output sends bulk requests of up to
# 20 MiB (target_bulk_bytes); room for its last event.
MAX_BODY_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """The numbers of the input rules (docs/limits.md), validated on creation.

    ``max_doc_bytes``: a page's content field (``text``/``html``/``rst``/``markdown``) in UTF-8
    bytes (``NEARDUP_MAX_DOC_BYTES``). ``max_id_bytes``: an id in UTF-8 bytes (OpenSearch's
    ``_id`` limit). ``max_field_bytes``: ``url``, ``site`` and ``title`` each. ``max_depth``:
    JSON nesting of a record (arrays and objects, the record itself included).
    """

    max_doc_bytes: int = Settings.max_doc_bytes
    max_id_bytes: int = 512
    max_field_bytes: int = 8192
    max_depth: int = 100

    def __post_init__(self) -> None:
        for name in ("max_doc_bytes", "max_id_bytes", "max_field_bytes", "max_depth"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)}")

    @property
    def max_record_bytes(self) -> int:
        """A record as sent (a JSONL line, a bulk source line): :data:`RECORD_FACTOR` × the
        page limit."""
        return RECORD_FACTOR * self.max_doc_bytes

    @classmethod
    def from_settings(cls, settings: Settings | None) -> Limits:
        if settings is None:
            return DEFAULT_LIMITS
        return cls(max_doc_bytes=settings.max_doc_bytes)


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True, slots=True)
class Page:
    """A validated input document: what step 1 (extraction, fingerprints) reads.

    Stage: the input layer. Before it: a raw record (a JSONL line, an HTTP item or ``_bulk``
    source, a Python mapping), decoded and checked by :func:`validate_page`; after it: its
    text extracted (:class:`~neardup.ingest.extract.ExtractedText`), then fingerprinted as a
    :class:`~neardup.ingest.store.base.StoredDocument`
    (:func:`neardup.ingest.pipeline.prepare_document`)."""

    id: str | None  # None only where no id is asked for (the sides of a `compare` pair)
    field: str  # the content field read: text | html | rst | markdown
    source: str | bytes = dataclass_field(repr=False)
    url: str | None = None
    site: str | None = None
    title: str | None = None
    content_type: str | None = None  # HTTP header hint for bytes (Python callers only)

    def document(self) -> dict[str, Any]:
        """The page as the extractor's mapping (:func:`neardup.ingest.extract.document_texts`)."""
        out: dict[str, Any] = {"id": self.id, self.field: self.source}
        if self.content_type is not None:
            out["content_type"] = self.content_type
        return out


# --- step 1: framing ----------------------------------------------------------------------------


def read_jsonl(
    source: str | os.PathLike[str] | IO[bytes],
    limits: Limits = DEFAULT_LIMITS,
    *,
    skip_blank: bool = True,
) -> Iterator[tuple[int, bytes | DocumentError]]:
    """``(line number, line)`` of a JSONL file (``-``: stdin) or binary stream, line ends
    removed; blank lines skipped unless ``skip_blank`` is false. A line over
    ``limits.max_record_bytes`` is read past in pieces and comes as a
    :class:`~neardup.ingest.errors.DocumentTooLarge` in its place."""
    if isinstance(source, (str, os.PathLike)):
        if str(source) == "-":
            yield from read_jsonl(sys.stdin.buffer, limits, skip_blank=skip_blank)
            return
        with Path(source).open("rb") as stream:
            yield from read_jsonl(stream, limits, skip_blank=skip_blank)
        return
    limit = limits.max_record_bytes
    number = 0
    while True:
        raw = source.readline(limit + 2)  # the line, its "\r\n", one byte more
        if not raw:
            return
        number += 1
        line = raw.rstrip(b"\r\n")
        if len(line) > limit:
            size = len(line)
            ended = raw.endswith(b"\n")
            while not ended:
                piece = source.readline(1 << 20)
                if not piece:
                    break
                size += len(piece.rstrip(b"\r\n"))
                ended = piece.endswith(b"\n")
            yield number, DocumentTooLarge(
                f"record of {size} bytes exceeds the {limit}-byte limit "
                f"({RECORD_FACTOR} × NEARDUP_MAX_DOC_BYTES); not read",
                _sniff_id(line[:4096]),
            )
            continue
        if skip_blank and not line.strip():
            continue
        yield number, line


def split_lines(body: bytes, *, skip_blank: bool = True) -> Iterator[tuple[int, bytes]]:
    """``(line number, line)`` of a JSONL body held in memory (the HTTP bodies)."""
    for number, line in enumerate(body.split(b"\n"), start=1):
        line = line.rstrip(b"\r")
        if skip_blank and not line.strip():
            continue
        yield number, line


def _sniff_id(head: bytes | str) -> str | None:
    """Best-effort id of a record too large to parse, from its first kilobytes."""
    if isinstance(head, bytes):
        head = head.decode("utf-8", "replace")
    m = re.search(r'"id"\s*:\s*"((?:[^"\\]|\\.){0,600})"', head[:4096])
    if not m:
        return None
    try:
        value = json.loads(f'"{m.group(1)}"')
    except (json.JSONDecodeError, RecursionError):
        return None
    try:
        return validate_id(value)
    except DocumentError:
        return None


# --- step 2: decoding ---------------------------------------------------------------------------

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def _too_deep(text: str, limit: int) -> bool:
    """Whether the JSON ``text`` nests arrays/objects deeper than ``limit`` (strings skipped)."""
    if text.count("[") + text.count("{") <= limit:
        return False  # the common case: cannot be deeper than the brackets it has
    skeleton = _NOT_BRACKET.sub("", _STRING.sub("", text))
    depth = 0
    for ch in skeleton:
        if ch in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


class _Refused(ValueError):
    """What the JSON hooks raise (caught by :func:`decode_json`)."""


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(f"duplicate key {_preview(key)}")
            seen.add(key)
    return out


def _no_constant(name: str) -> Any:
    raise _Refused(f"{name} is not JSON (numbers must be finite)")


def decode_json(text: str, limits: Limits = DEFAULT_LIMITS) -> Any:
    """The JSON value of ``text`` under the decoding rules (module docstring, step 2); raises
    :class:`~neardup.ingest.errors.InvalidRecord` and nothing else."""
    if _too_deep(text, limits.max_depth):
        raise InvalidRecord(f"JSON nested deeper than {limits.max_depth} levels")
    try:
        return json.loads(
            text, object_pairs_hook=_no_duplicate_keys, parse_constant=_no_constant
        )
    except json.JSONDecodeError as exc:
        if not text.strip():
            raise InvalidRecord("empty line: expected a JSON object") from None
        raise InvalidRecord(f"invalid JSON: {exc.msg} at column {exc.colno}") from None
    except _Refused as exc:
        raise InvalidRecord(f"invalid JSON: {exc}") from None
    except RecursionError:  # not reached after the depth check; kept as the last guard
        raise InvalidRecord(f"JSON nested deeper than {limits.max_depth} levels") from None
    except ValueError as exc:  # an integer literal over sys.get_int_max_str_digits() digits
        raise InvalidRecord(f"invalid JSON: {str(exc)[:200]}") from None


def decode_record(raw: bytes | str, limits: Limits = DEFAULT_LIMITS) -> dict[str, Any]:
    """One record (a JSONL line, a bulk source line) as a JSON object.

    Raises :class:`~neardup.ingest.errors.DocumentTooLarge` over ``limits.max_record_bytes`` and
    :class:`~neardup.ingest.errors.InvalidRecord` for anything that is not a UTF-8 JSON object within
    the decoding rules."""
    size = len(raw) if isinstance(raw, bytes) else utf8_size(raw, limits.max_record_bytes)
    if size > limits.max_record_bytes:
        raise DocumentTooLarge(
            f"record of {size} bytes exceeds the {limits.max_record_bytes}-byte limit "
            f"({RECORD_FACTOR} × NEARDUP_MAX_DOC_BYTES)",
            _sniff_id(raw[:4096]),
        )
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidRecord(
                f"not UTF-8 (binary junk, or another encoding?): {exc.reason} at byte {exc.start}"
            ) from None
    else:
        text = raw
    value = decode_json(text.removeprefix("\ufeff"), limits)
    if not isinstance(value, dict):
        raise InvalidRecord(f"a record must be a JSON object, got {_json_type(value)}")
    return value


# --- step 3: validation -------------------------------------------------------------------------

def has_surrogates(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (it cannot be encoded as UTF-8)."""
    return bool(_text_flags(text) & SURROGATE)


def replace_surrogates(text: str) -> str:
    """Lone surrogates (JSON ``\\ud800`` escapes) cannot be stored as UTF-8: U+FFFD each."""
    return SURROGATE_CHARS.sub("\ufffd", text) if has_surrogates(text) else text


def utf8_size(text: str | bytes, limit: int | None = None) -> int:
    """Bytes of ``text`` in UTF-8 (a lone surrogate counts 3); skips the encoding when the
    string cannot exceed ``limit`` anyway."""
    if isinstance(text, bytes):
        return len(text)
    if limit is not None and len(text) * 4 <= limit:
        return len(text)
    return len(text.encode("utf-8", errors="surrogatepass"))


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def _preview(value: str, n: int = 40) -> str:
    """A short, printable, JSON-safe rendering of a string for a message."""
    shown = value if len(value) <= n else value[:n] + "…"
    return json.dumps(shown)  # escapes control characters and lone surrogates


def validate_id(value: Any, limits: Limits = DEFAULT_LIMITS) -> str:
    """The id of a record: a non-blank string, or an integer (taken as its decimal digits: ``7``
    and ``"7"`` are one id, as ``_id`` is in OpenSearch), of valid Unicode and at most
    ``limits.max_id_bytes`` UTF-8 bytes. Raises :class:`~neardup.ingest.errors.InvalidField`."""
    if value is None:
        raise InvalidField("missing 'id'")
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InvalidField(f"'id' must be a string or an integer, got {_json_type(value)}")
    try:
        text = value if isinstance(value, str) else str(value)
    except ValueError:  # an integer over the interpreter's digit limit
        raise InvalidField(f"'id' is over {limits.max_id_bytes} bytes") from None
    if not text.strip():
        raise InvalidField("'id' is empty")
    if has_surrogates(text):
        raise InvalidField(f"'id' {_preview(text)} contains a lone surrogate: not valid Unicode")
    size = len(text.encode("utf-8"))
    if size > limits.max_id_bytes:
        raise InvalidField(
            f"'id' is {size} bytes; at most {limits.max_id_bytes} ({_preview(text)})"
        )
    return text


def validate_page(
    obj: Any,
    limits: Limits = DEFAULT_LIMITS,
    *,
    require_id: bool = True,
) -> Page:
    """A record (a decoded JSON object, or a mapping from Python) as a :class:`Page`.

    The id (:func:`validate_id`) unless ``require_id`` is false (then it is not read); the
    first present of :data:`CONTENT_FIELDS`, each present one a string, the one read at most ``limits.max_doc_bytes`` in UTF-8; ``url``, ``site``,
    ``title`` strings or numbers (taken as text) of at most ``limits.max_field_bytes``. Other
    fields are ignored. Errors carry the id once it is known."""
    if not isinstance(obj, Mapping):
        raise InvalidRecord(f"a record must be a JSON object, got {_json_type(obj)}")
    doc_id = validate_id(obj.get("id"), limits) if require_id else None
    for name in CONTENT_FIELDS:
        value = obj.get(name)
        if value is not None and not isinstance(value, str | bytes):
            raise InvalidField(f"'{name}' must be a string, got {_json_type(value)}", doc_id)
    key = next((k for k in CONTENT_FIELDS if obj.get(k) is not None), None)
    if key is None:
        names = [repr(k) for k in CONTENT_FIELDS]
        raise EmptyDocument(f"neither {', '.join(names[:-1])} nor {names[-1]}", doc_id)
    source: str | bytes = obj[key]
    size = utf8_size(source, limits.max_doc_bytes)
    if size > limits.max_doc_bytes:
        raise DocumentTooLarge(
            f"page of {size} bytes exceeds the {limits.max_doc_bytes}-byte limit "
            f"(NEARDUP_MAX_DOC_BYTES; '{key}' in UTF-8)",
            doc_id,
        )
    if isinstance(source, str):
        source = replace_surrogates(source)
    meta = {k: _metadata(obj, k, limits, doc_id) for k in METADATA_FIELDS}
    content_type = obj.get("content_type")
    return Page(
        id=doc_id,
        field=key,
        source=source,
        content_type=content_type if isinstance(content_type, str) else None,
        **meta,
    )


def _metadata(obj: Mapping[str, Any], key: str, limits: Limits, doc_id: str | None) -> str | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise InvalidField(f"'{key}' must be a string, got {_json_type(value)}", doc_id)
    text = value if isinstance(value, str) else str(value)
    size = utf8_size(text, limits.max_field_bytes)
    if size > limits.max_field_bytes:
        raise InvalidField(f"'{key}' is {size} bytes; at most {limits.max_field_bytes}", doc_id)
    return replace_surrogates(text)


def clean_text(text: str, doc_id: str | None = None) -> str:
    """A page's extracted text as neardup stores and verifies it: C0 control characters
    (but tab and line ends) blanked, or :class:`~neardup.ingest.errors.ExtractError` when they are
    over :data:`MAX_CONTROL_SHARE` of it (binary junk); lone surrogates as U+FFFD;
    :class:`~neardup.ingest.errors.EmptyDocument` when nothing visible is left."""
    flags = _text_flags(text)
    if flags & CONTROL:
        controls = len(CONTROL_CHARS.findall(text))
        if controls > MAX_CONTROL_SHARE * max(len(text), 1):
            raise ExtractError(f"text is binary junk ({controls} control characters)", doc_id)
        text = CONTROL_CHARS.sub(" ", text)
    if flags & SURROGATE:
        text = SURROGATE_CHARS.sub("\ufffd", text)
    if not text.strip():
        raise EmptyDocument("no text", doc_id)
    return text


def check_stored(doc: Any, limits: Limits = DEFAULT_LIMITS) -> None:
    """Raise the :class:`~neardup.ingest.errors.DocumentError` of a stored document the verifier cannot
    take (a worker reads pages back from the index, where another pipeline may have written
    them): a text that is not a string or over ``limits.max_doc_bytes``, no ingest sequence."""
    body = getattr(doc, "body", None)
    if not isinstance(body, str):
        raise InvalidField(
            f"stored document has no text ('body' is {_json_type(body)}; written outside neardup?)",
            doc.id,
        )
    seq = getattr(doc, "seq", None)
    if isinstance(seq, bool) or not isinstance(seq, int):
        raise InvalidField(f"stored document has no ingest sequence ('seq' is {_json_type(seq)})",
                           doc.id)
    for name in ("body", "content"):
        text = getattr(doc, name, None)
        if isinstance(text, str):
            size = utf8_size(text, limits.max_doc_bytes)
            if size > limits.max_doc_bytes:
                raise DocumentTooLarge(
                    f"stored '{name}' of {size} bytes exceeds the {limits.max_doc_bytes}-byte "
                    "limit (NEARDUP_MAX_DOC_BYTES)",
                    doc.id,
                )


# --- the rules as a table (docs/limits.md holds a copy; a test compares) -----------------------


def _bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n} bytes ({n // size} {unit})"
    return f"{n} bytes"


def limits_table(limits: Limits = DEFAULT_LIMITS) -> str:
    """The Markdown table of the input rules and their numbers (``python -m neardup.ingest.records``)."""
    rows = [
        ("record: a JSONL line, a `POST /documents` line or element, a `_bulk` source line",
         "UTF-8 (a leading BOM is dropped); one JSON object",
         f"{_bytes(limits.max_record_bytes)} as sent ({RECORD_FACTOR} × the page limit); a "
         "longer JSONL line is read past, not held",
         "`parse_exception`; over the limit `document_too_large`"),
        ("JSON nesting", "arrays and objects, the record itself counted as 1",
         f"{limits.max_depth} levels", "`parse_exception`"),
        ("JSON values", "RFC 8259: no `NaN`/`Infinity`, no duplicate key, no integer literal "
         f"over {sys.get_int_max_str_digits() or 'any number of'} digits", "",
         "`parse_exception`"),
        ("`id`", "a string that is not blank, or an integer (its decimal digits: `7` and `\"7\"` "
         "are one id); not a boolean, float, null, array or object; no lone surrogate",
         f"{_bytes(limits.max_id_bytes)} in UTF-8", "`illegal_argument_exception`"),
        ("`id` twice in one input", "CLI: the first record with a valid id claims it (even when "
         "the rest of it is bad); HTTP: the items apply in order", "", "CLI: `duplicate_id`; HTTP: `noop` (same page) or "
         "`updated` (another page: the later one wins)"),
        ("content: `text`, `html`, `rst`, `markdown`",
         "the first present (not null) is read; each present one is a string; lone "
         "surrogates become U+FFFD",
         f"{_bytes(limits.max_doc_bytes)} in UTF-8 (`NEARDUP_MAX_DOC_BYTES`)",
         "none: `empty_document`; not a string: `illegal_argument_exception`; over: "
         "`document_too_large`"),
        ("text after extraction", "control characters blanked, or the page is binary junk "
         f"when they are over {MAX_CONTROL_SHARE:.0%}; something visible must remain", "",
         "`extract_error`; nothing visible: `empty_document`"),
        ("HTML", "any nesting depth (deeper than libxml2's 2048 levels: read by tokens, full "
         "text, no main-content detection); charset from BOM, header hint, `<meta>`, "
         "detection", f"{DEFAULT_TIMEOUT:g} s of extraction per page",
         "`extract_timeout`, `extract_error`"),
        ("`url`, `site`, `title`", "a string, or a number taken as text; null is absent; lone "
         "surrogates become U+FFFD", f"{_bytes(limits.max_field_bytes)} each, in UTF-8",
         "`illegal_argument_exception`"),
        ("an HTTP request body (`POST /documents`, `_bulk`)", "identity, gzip or deflate; "
         "checked declared, while streaming and after decompression",
         f"{_bytes(MAX_BODY_BYTES)} (`neardup serve --max-body`)",
         "413 `request_entity_too_large` for the request"),
        ("an id in an HTTP path (`/documents/{id}`, `/groups/{id}`)", "the `id` rule",
         f"{_bytes(limits.max_id_bytes)}", "400 `illegal_argument_exception`"),
        ("other fields", "ignored (`compare` passes them through, re-encoded as read)", "", ""),
        ("a stored page a worker reads back", "`body` a string, `seq` an integer; `body` and "
         "`content` within the page limit", f"{_bytes(limits.max_doc_bytes)}",
         "page `status: error`, `error: \"<type>: <reason>\"`, dead-letter record"),
        ("an id in a worker's message", "the `id` rule", f"{_bytes(limits.max_id_bytes)}",
         "dead-letter record, the message's other ids go on"),
    ]
    out = ["| input | rule | limit | error `type` |", "|---|---|---|---|"]
    out += [f"| {a} | {b} | {c or '–'} | {d or '–'} |" for a, b, c, d in rows]
    return "\n".join(out) + "\n"


def safe_id(value: Any) -> str | None:
    """``value`` when it is a valid id (:func:`validate_id`), else None: what an error item
    may echo back."""
    try:
        return validate_id(value)
    except DocumentError:
        return None


if __name__ == "__main__":  # pragma: no cover
    print(limits_table(), end="")

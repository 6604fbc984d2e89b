"""JSON out and in, one module: what each function returns says its name.

* :func:`dumps_str` — ``str``, readable (``ensure_ascii=False``): an output line of the CLI, a
  dead-letter record. Always encodable as UTF-8: a lone surrogate (an input echoed back, kept
  as it came in) is written as its ``\\uXXXX`` escape.
* :func:`dumps_bytes_strict` — ``bytes``, compact UTF-8 by the standard library, ``NaN`` and
  ``Infinity`` refused (``ValueError``): an HTTP answer.
* :func:`dumps_bytes_fast` — ``bytes``, compact UTF-8 by orjson, several times faster (batches,
  engine bodies); what orjson refuses goes through :func:`dumps_bytes_strict`.
* :func:`loads_fast` — a value, parsed by orjson; by ``json`` where orjson refuses the input
  (an escaped lone surrogate).

orjson is imported on first use: ``neardup compare`` never needs it, and its import
(datetime, uuid, platform) is 3 ms of that command's start.
"""

from __future__ import annotations

import json
from typing import Any

from neardup.ingest.records import has_surrogates

__all__ = ["dumps_bytes_fast", "dumps_bytes_strict", "dumps_str", "loads_fast"]


def dumps_str(value: Any) -> str:
    """``json.dumps`` that always encodes as UTF-8: readable (``ensure_ascii=False``) unless a
    string holds a lone surrogate, which is then written as its ``\\uXXXX`` escape — exactly
    as it came in.

    >>> dumps_str({"a": "中"}), dumps_str({"a": "x\\ud800"})
    ('{"a": "中"}', '{"a": "x\\\\ud800"}')
    """
    text = json.dumps(value, ensure_ascii=False)
    if has_surrogates(text):
        return json.dumps(value, ensure_ascii=True)
    return text


def dumps_bytes_strict(value: Any) -> bytes:
    """:func:`dumps_str` compact and encoded (an HTTP body); ``NaN``/``Infinity`` refused."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode()


def dumps_bytes_fast(value: Any) -> bytes:
    """Compact UTF-8 JSON by orjson, several times faster than ``json`` (batches, engine
    bodies); :func:`dumps_bytes_strict` where orjson refuses the value (a lone surrogate, a
    type it does not know)."""
    import orjson

    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        return dumps_bytes_strict(value)


def loads_fast(data: str | bytes) -> Any:
    """JSON by orjson; ``json`` where orjson refuses it (an escaped lone surrogate)."""
    import orjson

    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)

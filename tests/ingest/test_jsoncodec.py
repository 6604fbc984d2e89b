"""neardup.ingest.jsoncodec: JSON that always encodes, and the fast orjson paths."""

from __future__ import annotations

import json

from neardup.ingest.jsoncodec import dumps_bytes_fast, dumps_bytes_strict, dumps_str, loads_fast


def test_dumps_str_always_encodes() -> None:
    assert dumps_str({"a": "中"}) == '{"a": "中"}'
    out = dumps_str({"a": "x\ud800"})
    out.encode("utf-8")
    assert json.loads(out) == {"a": "x\ud800"}  # written as it came in


def test_fast_json_round_trips_what_plain_json_does() -> None:
    """orjson where it can; the ``json`` path for a lone surrogate, both ways, so a page that
    carries one (kept as it came in) still travels through a batch and the engine."""
    value = {"a": "é 中", "b": [1, 2.5, None, True], "c": {"d": ""}}
    encoded = dumps_bytes_fast(value)
    assert encoded == json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    assert loads_fast(encoded) == value == loads_fast(encoded.decode())
    lone = {"a": "x\ud800y"}
    encoded = dumps_bytes_fast(lone)
    assert encoded == b'{"a":"x\\ud800y"}'
    assert loads_fast(encoded) == lone


def test_dumps_bytes_strict_is_compact_utf8_and_refuses_nan() -> None:
    assert dumps_bytes_strict({"a": "中", "b": [1]}) == '{"a":"中","b":[1]}'.encode()
    assert dumps_bytes_strict({"a": "x\ud800"}) == b'{"a":"x\\ud800"}'
    try:
        dumps_bytes_strict(float("nan"))
    except ValueError:
        pass
    else:
        raise AssertionError("NaN must be refused")

"""The charset of a page's bytes, and their text.

For ``bytes`` input, the first evidence that applies: a byte-order mark; the HTTP
``Content-Type`` charset hint; ``<meta charset>`` / ``<meta http-equiv="Content-Type">`` in the
first 4 KiB; detection with charset-normalizer; UTF-8 with replacement as the last resort.
GBK and GB2312 (and their aliases) decode as GB18030, their superset: pages labelled GB2312
routinely contain GBK characters, and GB18030 decodes every GBK byte sequence identically.
"""

from __future__ import annotations

import codecs
import re

__all__ = ["decode_html"]

_GB_FAMILY = frozenset({"gb2312", "gbk", "gb18030", "hz", "euc_cn", "cp936", "ms936"})

_META_CHARSET = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE
)
_HEADER_CHARSET = re.compile(r"""charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: same first two bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def _codec(label: str | None) -> str | None:
    """Python codec name for a charset label, GB family mapped to GB18030; None if unknown."""
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip().strip("\"'")).name
    except LookupError:
        return None
    return "gb18030" if name in _GB_FAMILY else name


def decode_html(data: bytes, content_type: str | None = None) -> str:
    """Decode an HTML page's bytes (see the module docstring for the order of evidence)."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(name, errors="replace")
    candidates: list[str] = []
    if content_type:
        m = _HEADER_CHARSET.search(content_type)
        if m and (codec := _codec(m.group(1))):
            candidates.append(codec)
    meta = _META_CHARSET.search(data[:4096])
    if meta and (codec := _codec(meta.group(1).decode("ascii", "replace"))):
        candidates.append(codec)
    for name in candidates:
        try:
            return data.decode(name)
        except UnicodeDecodeError:
            continue  # a wrong label: try the next piece of evidence
    try:
        return data.decode("utf-8")  # strict: valid UTF-8 is almost never anything else
    except UnicodeDecodeError:
        pass
    guess = _detect(data)
    if candidates:  # a declared charset that does not fit everywhere still beats a guess
        guess = candidates[0]
    return data.decode(guess or "utf-8", errors="replace")


def _detect(data: bytes) -> str | None:
    from charset_normalizer import from_bytes

    best = from_bytes(data[:65536]).best()
    return _codec(best.encoding) if best is not None else None

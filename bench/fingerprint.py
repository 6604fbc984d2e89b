"""Throughput of step 1 on one core: text → fingerprints vs datasketch MinHash, and HTML → text.

Same documents, same run: People's Daily articles (runs of 8 consecutive paragraphs separated by
blank lines, Chinese) and the Python 3.11 docs (extracted HTML pages, English). MinHash is
datasketch ``MinHash(num_perm=128)`` over 5-shingles: word 5-shingles for English (whitespace
split), character 5-shingles for Chinese (no spaces; a segmenter would only add cost to the
MinHash side). MinHash is timed two ways: the typical usage (``m.update(s.encode())`` per
shingle, as in datasketch's documentation) and ``update_batch`` with the permutations built once
and reused (its fastest path). Shingling is counted on the MinHash side (it is part of turning
text into a signature), as sentence splitting is on ours. Ratios are against each.

Our side is what the product runs per document: ``index_terms`` (fingerprints, or the
exact-copy term) of the default ``web`` profile. Two English rows: on the full extracted text
(the same text MinHash gets: the like-for-like ratio) and on the page's main content
(``extract_texts(...).content``, what the product fingerprints; MinHash still on the full text).
The extractor is timed both ways: ``extract_text`` (full text only) and ``extract_texts`` (full
text and main content from one parse, what ingestion needs).
Run: ``python bench/fingerprint.py [--docs N] [--config IDENTITY]``.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import os
import sys
import time
from pathlib import Path

from neardup.ingest.extract import extract_text, extract_texts
from neardup.ingest.fingerprint import (
    PROFILES,
    FingerprintConfig,
    fingerprint_impl,
    index_terms,
)

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def _pydoc_root() -> Path | None:
    for cand in (
        os.environ.get("NEARDUP_DEB_PYTHON3_11_DOC", "") + "/usr/share/doc/python3.11/html",
        "/usr/share/doc/python3.11/html",
        str(Path(__file__).resolve().parent.parent / ".cache/debs/python3.11-doc"
            / "usr/share/doc/python3.11/html"),
    ):  # fmt: skip
        if Path(cand).is_dir():
            return Path(cand)
    return None


def _shingle_texts(text: str, chinese: bool) -> list[str]:
    if chinese:
        chars = "".join(text.split())
        return [chars[i : i + 5] for i in range(max(1, len(chars) - 4))]
    words = text.split()
    return [" ".join(words[i : i + 5]) for i in range(max(1, len(words) - 4))]


def _shingles(text: str, chinese: bool) -> list[bytes]:
    return [s.encode() for s in _shingle_texts(text, chinese)]


def _rate(fn, items) -> float:  # noqa: ANN001
    start = time.perf_counter()
    for item in items:
        fn(item)
    return len(items) / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=400, help="documents per corpus")
    parser.add_argument("--config", default=None, help="fingerprint config identity (default: web)")
    args = parser.parse_args(argv)
    from datasketch import MinHash

    with gzip.open(DATA / "people_daily_199801.plain.txt.gz", "rt", encoding="utf-8") as fh:
        lines = [line.strip() for line in fh if line.strip()]
    zh = ["\n\n".join(lines[i : i + 8]) for i in range(0, 8 * args.docs, 8)][: args.docs]
    # (name, texts MinHash gets, texts we fingerprint, Chinese?)
    corpora: list[tuple[str, list[str], list[str], bool]] = [("people-daily zh", zh, zh, True)]
    root = _pydoc_root()
    pages: list[bytes] = []
    if root is not None:
        with (DATA / "python311doc_html_vs_rst_pairs.tsv").open(encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh, delimiter="\t"))
        pages = [
            (root / r["html_path"]).read_bytes() for r in rows if (root / r["html_path"]).exists()
        ]
        both = [extract_texts(p) for p in pages[: args.docs]]
        en = [b.text for b in both]
        corpora.append(("python-docs en, full text", en, en, False))
        corpora.append(("python-docs en, main content", en, [b.content for b in both], False))
    else:
        print("python3.11-doc HTML not found: English corpus and extractor bench skipped")

    proto = MinHash(num_perm=128)
    perm, scheme = proto.permutations, getattr(proto, "scheme", "affine32")
    web = FingerprintConfig.from_identity(args.config) if args.config else PROFILES["web"]
    print(f"index_terms: {web.identity}, implementation {fingerprint_impl()}")

    def typical(text: str, chinese: bool) -> None:
        m = MinHash(num_perm=128)
        for s in _shingle_texts(text, chinese):
            m.update(s.encode("utf-8"))

    def batch(text: str, chinese: bool) -> None:
        MinHash(num_perm=128, permutations=perm, scheme=scheme).update_batch(
            _shingles(text, chinese)
        )

    for name, docs, ours, chinese in corpora:
        chars = sum(map(len, ours)) / len(ours)
        fp = _rate(lambda t: index_terms(t, web), ours)
        mh_typ = _rate(lambda t, c=chinese: typical(t, c), docs[: max(20, len(docs) // 4)])
        mh_batch = _rate(lambda t, c=chinese: batch(t, c), docs)
        fp = max(fp, _rate(lambda t: index_terms(t, web), ours))  # again: same load
        print(
            f"{name}: {len(docs)} docs, {chars:,.0f} chars/doc | index_terms {fp:,.0f} docs/s | "
            f"MinHash(128) update() {mh_typ:,.1f} docs/s -> {fp / mh_typ:,.0f}x | "
            f"update_batch {mh_batch:,.0f} docs/s -> {fp / mh_batch:,.1f}x"
        )
    if pages:
        size = sum(map(len, pages)) / len(pages)
        for fn in (extract_text, extract_texts):
            rate = _rate(fn, pages)
            print(f"{fn.__name__} on {len(pages)} python3.11-doc HTML pages ({size / 1024:.0f} KiB "
                  f"avg): {rate:,.0f} pages/s, {rate * size / 2**20:.1f} MiB/s")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

from __future__ import annotations

import random
from itertools import combinations

from neardup.evaluation.baselines.simhash import SimHash, hamming, simhash64


def test_identical_texts_have_equal_fingerprints(long_text: str) -> None:
    sh = SimHash()
    assert sh.signature(long_text) == sh.signature(long_text)
    assert sh.similar(sh.signature(long_text), sh.signature(long_text))
    assert sh.score(sh.signature(long_text), sh.signature(long_text)) == 1.0


def test_distance_grows_with_edits(long_text: str) -> None:
    sh = SimHash()
    words = long_text.split()
    order = random.Random(7).sample(range(len(words)), len(words))

    def edited(n: int) -> str:  # the first n positions of one random order: nested edits
        out = list(words)
        for i in order[:n]:
            out[i] = f"edit{i}"
        return " ".join(out)

    base = sh.signature(long_text)
    dist = [hamming(base, sh.signature(edited(n))) for n in (1, 15, 60, 120)]
    assert dist[0] <= 3  # one word in ~200: still a near duplicate
    assert dist == sorted(dist) and dist[0] < dist[2] < dist[3]
    assert hamming(base, sh.signature("a completely different short text about cats")) > 10


def test_fingerprint_follows_the_weighted_majority() -> None:
    # a feature with more weight than all others together decides every bit
    heavy = simhash64({"heavy": 100.0, "a": 1.0, "b": 1.0})
    assert heavy == simhash64({"heavy": 1.0})


def _flip(fp: int, bits: list[int]) -> int:
    for b in bits:
        fp ^= 1 << b
    return fp


def test_block_tables_find_exactly_the_pairs_within_three_bits() -> None:
    rng = random.Random(3)
    sigs: dict[str, int | None] = {"empty": None}
    for c in range(20):
        base = rng.getrandbits(64)
        sigs[f"c{c}"] = base
        # 1–5 flipped bits, spread over different 16-bit blocks
        for n in range(1, 6):
            sigs[f"c{c}-{n}"] = _flip(base, rng.sample(range(64), n))
    sh = SimHash()
    truth = {
        (x, y)
        for x, y in combinations(sorted(k for k, v in sigs.items() if v is not None), 2)
        if hamming(sigs[x], sigs[y]) <= 3  # type: ignore[arg-type]
    }
    assert sh.candidates(sigs) == truth
    assert ("c0", "c0-3") in truth and ("c0", "c0-4") not in truth


def test_three_bits_in_three_blocks_still_share_the_fourth() -> None:
    a = 0x0123_4567_89AB_CDEF
    b = _flip(a, [1, 17, 33])  # blocks 0, 1, 2 differ; block 3 equal
    assert SimHash().candidates({"a": a, "b": b}) == {("a", "b")}

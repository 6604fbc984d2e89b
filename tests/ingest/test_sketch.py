"""The count-min sketch (neardup.ingest.sketch): one bucket function, its compiled twin giving
the reference's cells, and the in-memory sketch and the Redis one raising the same cells."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.ci import require_compiled

from neardup.ingest import _sketch_py, sketch
from neardup.ingest.sketch import MULTIPLIERS, SketchCounter, multipliers
from neardup.ingest.workers.chrome_counts import RedisSketch

KEYS = st.lists(st.integers(0, (1 << 64) - 1) | st.sampled_from([0, 1, (1 << 64) - 1]),
                max_size=50)
SHAPES = st.tuples(st.integers(1, 1 << 24) | st.sampled_from([1, 7, 1 << 22]),
                   st.integers(1, len(MULTIPLIERS)))


@settings(max_examples=300, deadline=None)
@given(KEYS, SHAPES)
def test_the_compiled_cells_are_the_reference(keys: list[int], shape: tuple[int, int]) -> None:
    compiled = require_compiled("neardup.ingest._sketch")
    width, depth = shape
    mults = multipliers(width, depth)
    for key in keys:
        assert compiled.cells(key, mults, width) == _sketch_py.cells(key, mults, width)
    assert compiled.cells_text(keys, mults, width) == _sketch_py.cells_text(keys, mults, width)


def test_cells_text_is_the_offsets_of_the_cells_of_each_key_but_zero() -> None:
    rng = random.Random(11)
    keys = [rng.getrandbits(64) for _ in range(200)] + [0, 1, (1 << 64) - 1]
    mults, width = MULTIPLIERS[:4], 1 << 22
    want = " ".join(str(row * width + c) for k in keys if k
                    for row, c in enumerate(sketch.cells(k, mults, width)))
    assert sketch.cells_text(keys, mults, width) == want
    assert sketch.cells_text([], mults, width) == sketch.cells_text([0], mults, width) == ""


def test_the_redis_sketch_raises_the_cells_the_memory_sketch_raises() -> None:
    rng = random.Random(12)
    width, depth = 1 << 10, 3
    memory = SketchCounter(width, depth, conservative=False)
    remote = RedisSketch(SimpleNamespace(register_script=lambda source: None), "k", width, depth)
    raised: dict[int, int] = {}  # what BITFIELD INCRBY of the Redis sketch's offsets would hold
    for _ in range(3000):
        key = rng.getrandbits(64) if rng.random() < 0.5 else rng.getrandbits(8)
        memory.add(key)
        for offset in remote.offsets(key):
            raised[offset] = raised.get(offset, 0) + 1
    cells = [v for row in memory._rows for v in row]  # the rows laid end to end
    assert {o: v for o, v in enumerate(cells) if v} == raised


def test_shapes_are_checked() -> None:
    with pytest.raises(ValueError):
        multipliers(0, 4)
    with pytest.raises(ValueError):
        multipliers(8, len(MULTIPLIERS) + 1)
    assert multipliers(8, 2) == MULTIPLIERS[:2]


COUNTS = st.lists(st.tuples(st.integers(0, (1 << 64) - 1), st.integers(0, 1 << 33)), max_size=40)


@settings(max_examples=200, deadline=None)
@given(COUNTS, st.integers(1, 300), st.integers(1, len(MULTIPLIERS)))
def test_counts_added_at_once_are_those_added_in_turn(
    items: list[tuple[int, int]], width: int, depth: int,
) -> None:
    """``SketchCounter.add_counts`` (a plain sketch's merge and its exact counts turned into a
    sketch: one compiled loop) raises the cells ``add`` raises one key at a time, saturating
    alike; the compiled twin writes the reference's cells."""
    compiled = require_compiled("neardup.ingest._sketch")
    one, many = (SketchCounter(width, depth, conservative=False) for _ in range(2))
    for key, n in items:
        one.add(key, n)
    many.add_counts(items)
    assert many._rows == one._rows
    mults = multipliers(width, depth)
    rows = [row[:] for row in one._rows]
    compiled.add_counts(rows, items, mults, width)
    _sketch_py.add_counts(one._rows, items, mults, width)
    assert rows == one._rows


def test_counts_added_at_once_are_checked() -> None:
    compiled = require_compiled("neardup.ingest._sketch")
    for twin in (compiled, _sketch_py):
        rows = SketchCounter(7, 2, conservative=False)._rows
        with pytest.raises(ValueError):
            twin.add_counts(rows, [(1, -1)], MULTIPLIERS[:2], 7)  # counts are not taken back
        with pytest.raises(ValueError):
            twin.add_counts(rows, [(1, 1)], MULTIPLIERS[:3], 7)  # a row a multiplier
        with pytest.raises(ValueError):
            twin.add_counts(rows, [(1, 1)], MULTIPLIERS[:2], 8)  # rows of the width

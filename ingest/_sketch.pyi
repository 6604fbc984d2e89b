"""Types of the compiled twin of neardup.ingest._sketch_py (same API)."""

from array import array
from collections.abc import Iterable, Sequence

IMPLEMENTATION: str

def cells(key: int, mults: Sequence[int], width: int) -> list[int]: ...
def cells_text(keys: Iterable[int], mults: Sequence[int], width: int) -> str: ...
def add_counts(rows: Sequence[array[int]], items: Iterable[tuple[int, int]],
               mults: Sequence[int], width: int) -> None: ...

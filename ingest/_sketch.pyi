"""Types of the compiled twin of neardup.ingest._sketch_py (same API)."""

from collections.abc import Iterable, Sequence

IMPLEMENTATION: str

def cells(key: int, mults: Sequence[int], width: int) -> list[int]: ...
def cells_text(keys: Iterable[int], mults: Sequence[int], width: int) -> str: ...

"""Type stubs of the compiled input-layer checks (see ingest/records.py) and of the chrome
counts' cells (ingest/workers/chrome_counts.py)."""

from collections.abc import Iterable, Sequence

CONTROL: int
SURROGATE: int

def text_flags(text: str) -> int: ...

def sketch_cells(keys: Iterable[int], mults: Sequence[int], width: int) -> str: ...

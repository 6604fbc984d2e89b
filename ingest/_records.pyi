"""Types of the compiled twin of neardup.ingest._records_py (same API)."""

IMPLEMENTATION: str
CONTROL: int
SURROGATE: int

def text_flags(text: str) -> int: ...

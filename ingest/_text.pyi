"""Type stubs of the compiled input-layer checks (see ingest/records.py)."""

CONTROL: int
SURROGATE: int

def text_flags(text: str) -> int: ...

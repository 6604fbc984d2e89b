"""Types of the compiled twin of neardup.ingest._candidates_py (same API, and settings of its
own)."""

from typing import Any

IMPLEMENTATION: str

class CandidateTable:
    k: int
    def __init__(
        self, k: int, bucket_bits: int = 22, tag_bits: int = 16, buffer: int = 2097152
    ) -> None: ...
    def add(self, doc: Any) -> list[str]: ...
    def close(self) -> None: ...
    def __len__(self) -> int: ...
    @property
    def postings(self) -> int: ...

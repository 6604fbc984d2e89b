"""Types of the compiled twin of neardup.ingest._fingerprint_py (same API)."""

IMPLEMENTATION: str

def md5(data: bytes) -> bytes: ...
def fingerprints(
    text: str,
    x: int,
    y: int,
    z: int,
    m: int,
    rotations: int,
    chunk_above: int,
    chunk_min: int,
    chunk_max: int,
    chunk_div: int,
) -> list[str]: ...

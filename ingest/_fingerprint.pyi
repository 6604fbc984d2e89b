"""Type stubs of the compiled fingerprint fast path (see ingest/fingerprint.py)."""

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

def split_line_keys(text: str, fold_digits: bool) -> list[str]: ...
def line_hashes(text: str, prefix: bytes, fold_digits: bool) -> tuple[list[int], list[int]]: ...

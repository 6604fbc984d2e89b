"""What the group benches share (``groups.py``, ``docsite.py``): the ``neardup`` command they
run, JSONL reading, and pairwise precision / recall of a partition against the truth."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Hashable, Iterator, Mapping
from pathlib import Path
from typing import Any


def neardup_command() -> list[str]:
    """The ``neardup`` console script of this interpreter's environment (else on PATH, else the
    module)."""
    exe = Path(sys.executable).parent / "neardup"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("neardup")
    return [found] if found else [sys.executable, "-m", "neardup.ingest.cli"]


def work_dir(path: Path | None, prefix: str) -> tuple[Path, tempfile.TemporaryDirectory[str] | None]:
    """The bench's working directory: ``path`` (made if missing), else a temporary one (the
    second item, for the caller to clean up)."""
    if path is None:
        tmp = tempfile.TemporaryDirectory(prefix=prefix)
        return Path(tmp.name), tmp
    path.mkdir(parents=True, exist_ok=True)
    return path, None


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """The objects of a JSONL file, blank lines skipped."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def pairs_within(keys: Mapping[str, Hashable]) -> int:
    """How many pairs of ids share a key (the pairs a partition, or a finer one, puts together)."""
    return sum(n * (n - 1) // 2 for n in Counter(keys.values()).values())


def pairwise(group: Mapping[str, Hashable], cluster: Mapping[str, Hashable]) -> dict[str, Any]:
    """Pairwise P/R/F1 of the predicted partition ``group`` (id -> group) against the true one
    ``cluster`` (id -> cluster), over the same ids: a pair is predicted when both ids share a
    group, true when they share a cluster."""
    tp = pairs_within({i: (group[i], cluster[i]) for i in cluster})
    pred_pairs, true_pairs = pairs_within(group), pairs_within(cluster)
    p = tp / pred_pairs if pred_pairs else 1.0
    r = tp / true_pairs if true_pairs else 1.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0,
            "pred_pairs": pred_pairs, "true_pairs": true_pairs, "true_positive_pairs": tp,
            "false_pairs": pred_pairs - tp}

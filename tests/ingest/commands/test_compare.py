"""``neardup compare`` as other tools run it: JSONL in, JSONL out, errors per line."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from neardup.ingest.cli import main

BODY = "今天是新年的第一天，首都各界群众欢聚一堂，共同庆祝新年。The quick brown fox jumps over it. " * 12


def write_pairs(path: Path) -> None:
    lines = [
        json.dumps({"id": "same", "a": {"text": BODY}, "b": {"html": f"<p>menu</p><p>{BODY}</p>"}}),
        json.dumps({"id": "diff", "a": {"text": BODY}, "b": {"text": "completely unrelated words " * 30}}),
        "{not json",
        json.dumps({"id": "nob", "a": {"text": "x"}}),
        json.dumps({"id": "surrogate", "a": {"text": "\ud800" + BODY}, "b": {"text": BODY}}),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_compare_file(tmp_path: Path) -> None:
    pairs, out = tmp_path / "pairs.jsonl", tmp_path / "out.jsonl"
    write_pairs(pairs)
    assert main(["compare", str(pairs), "-o", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 5
    assert rows[0]["id"] == "same" and rows[0]["similar"] is True and rows[0]["tlcs"] > 500
    assert set(rows[0]) == {
        "id", "similar", "resemble", "contain", "tlcs", "reason", "word_resemble", "core_resemble",
        "word_contain",
    }
    assert rows[0]["reason"] == "content-similar"  # b has an extra "menu"
    diff = rows[1]
    assert diff["id"] == "diff" and diff["similar"] is False and diff["tlcs"] == 0
    # Rejected early: the rates are upper bounds (no shared window here: 0.0 is the bound).
    assert diff["bound"] is True and diff["resemble"] == 0.0 and diff["contain"] == 0.0
    assert diff["reason"] in ("skeleton-bound", "edit-distance-bound")
    assert rows[2]["line"] == 3 and "error" in rows[2]
    assert rows[3]["id"] == "nob" and rows[3]["line"] == 4 and "'b'" in rows[3]["error"]
    assert rows[4]["similar"] is True


def test_console_script_stdin_and_usage_errors(tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.jsonl"
    write_pairs(pairs)
    cmd = [sys.executable, "-m", "neardup.ingest.cli", "compare", "-"]
    proc = subprocess.run(cmd, input=pairs.read_text(encoding="utf-8"), capture_output=True, text=True)
    assert proc.returncode == 0 and len(proc.stdout.splitlines()) == 5
    proc = subprocess.run([sys.executable, "-m", "neardup.ingest.cli", "compare", str(tmp_path / "missing.jsonl")],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "missing.jsonl" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "neardup.ingest.cli", "compare"], capture_output=True, text=True)
    assert proc.returncode == 2


def paragraph(seed: int) -> str:
    rnd = random.Random(seed)
    zh = "今天是新年的第一天首都各界群众欢聚一堂共同庆祝北京上海广州经济发展改革开放人民生活水平提高"
    en = "the quick brown fox jumps over lazy dog river bank city market report said year people".split()
    return "".join(
        "".join(rnd.choice(zh) for _ in range(rnd.randint(10, 25))) + "。"
        if rnd.random() < 0.5
        else " ".join(rnd.choice(en) for _ in range(rnd.randint(5, 12))) + ". "
        for _ in range(12)
    )


def test_single_region_and_legacy_iterative(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Four paragraphs in reverse order: the iterative TLCS (the default) finds them all, a
    # single trustable region holds one.
    paragraphs = [paragraph(seed) for seed in range(4)]
    pair = {"a": {"text": "\n\n".join(paragraphs)}, "b": {"text": "\n\n".join(reversed(paragraphs))}}
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps(pair, ensure_ascii=False) + "\n", encoding="utf-8")
    rows = {}
    for flags in ([], ["--single-region"], ["--iterative"]):
        out = tmp_path / f"out{len(rows)}.jsonl"
        assert main(["compare", str(pairs), "-o", str(out), *flags]) == 0
        rows[" ".join(flags)] = json.loads(out.read_text(encoding="utf-8"))
    assert rows[""]["similar"] is True and rows[""]["resemble"] > 0.6
    assert rows["--single-region"]["tlcs"] < rows[""]["tlcs"] / 2
    # The same paragraphs in another order are still one page held by the other.
    assert rows["--single-region"]["similar"] is True
    assert rows["--single-region"]["reason"] == "contained"
    assert rows["--iterative"] == rows[""]  # accepted for old scripts: the default anyway
    assert main(["compare", str(pairs), "--single-region", "--iterative"]) == 2
    assert "contradict" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    usage = capsys.readouterr().out
    assert "--single-region" in usage and "--iterative" not in usage

"""The CLI imports a command's module only when that command runs."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from neardup.ingest.cli import COMMANDS, build_parser, main

HEAVY = (
    # the HTTP server, engine clients, the broker and the worker layer
    "opensearchpy", "elasticsearch", "celery", "kombu", "redis", "starlette", "uvicorn",
    "neardup.ingest.server", "neardup.ingest.store.opensearch", "neardup.ingest.commands.ingest", "neardup.ingest.workers",
)
# What a compiled run on plain text does not need either: the HTML parsers (lxml, and the
# standard library's tokenizer for pages too deep for it), the converters (one pair should
# start about as fast as a script), the pure-Python references of the verifier, the package metadata
# that only ``--version`` reads, the store (the CLI names its errors without loading it), and
# orjson (batches and engine bodies only; it imports datetime, uuid and platform).
PLAIN_TEXT_EXTRA = (
    "lxml", "html.parser", "docutils", "markdown_it", "neardup.verifier._lcs_py",
    "neardup.verifier._words_py", "importlib.metadata",
    "neardup.ingest.store", "orjson",
)
# What no command that talks to no engine needs: the HTTP library of the engine detection.
NO_ENGINE_EXTRA = ("urllib3", "neardup.ingest.store.detect")

PROBE = """
import sys
from neardup.ingest.cli import main
code = main(sys.argv[1:])
heavy = sorted(m for m in sys.modules if m.split(".")[0] in {heavy} or m in {heavy}
               or any(m.startswith(h + ".") for h in {heavy}))
print("HEAVY", heavy, file=sys.stderr)
sys.exit(code)
"""


def _run(args: list[str], heavy: tuple[str, ...] = HEAVY) -> tuple[int, list[str]]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=repr(set(heavy))), *args],
        capture_output=True, text=True, timeout=120,
    )
    line = [x for x in proc.stderr.splitlines() if x.startswith("HEAVY ")]
    assert line, proc.stderr
    return proc.returncode, eval(line[-1][len("HEAVY "):])  # a printed list of str


@pytest.mark.parametrize("command", ["compare", "dedup"])
def test_compare_and_dedup_load_no_server_engine_client_or_broker(
    command: str, tmp_path: Path
) -> None:
    text = "新华社北京一月一日电，今天是新年的第一天，首都各界群众欢聚一堂。" * 4
    if command == "compare":
        src = tmp_path / "pairs.jsonl"
        src.write_text(json.dumps({"a": {"text": text}, "b": {"text": text}}) + "\n")
    else:
        src = tmp_path / "pages.jsonl"
        src.write_text("".join(json.dumps({"id": i, "text": text}) + "\n" for i in "ab"))
    code, heavy = _run([command, str(src), "-o", str(tmp_path / "out.jsonl")],
                       HEAVY + NO_ENGINE_EXTRA)
    assert code == 0
    assert heavy == []


def test_compare_on_plain_text_loads_no_parser_nor_the_reference(tmp_path: Path) -> None:
    text = "新华社北京一月一日电，今天是新年的第一天，首都各界群众欢聚一堂。" * 4
    src = tmp_path / "pairs.jsonl"
    src.write_text(json.dumps({"a": {"text": text}, "b": {"text": text + "。"}}) + "\n")
    code, loaded = _run(["compare", str(src), "-o", str(tmp_path / "out.jsonl")],
                        HEAVY + NO_ENGINE_EXTRA + PLAIN_TEXT_EXTRA)
    assert code == 0
    assert loaded == []
    out = json.loads((tmp_path / "out.jsonl").read_text())
    assert out["similar"] is True and "error" not in out


def test_the_parser_declares_only_the_chosen_command() -> None:
    parser = build_parser("compare")
    args = parser.parse_args(["compare", "pairs.jsonl"])
    assert args.command == "compare" and hasattr(args, "func")
    assert set(COMMANDS) >= {"compare", "dedup", "ingest", "worker", "serve", "eval"}


def _choices(parser: argparse.ArgumentParser) -> set[str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return set(sub.choices)


def test_a_run_declares_no_other_command_but_the_help_lists_them_all(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _choices(build_parser("compare", listed=False)) == {"compare"}
    assert _choices(build_parser("compare")) == set(COMMANDS)
    assert _choices(build_parser(None, listed=False)) == set(COMMANDS)
    with pytest.raises(SystemExit):
        main(["--help", "compare"])
    shown = capsys.readouterr().out
    assert all(name in shown for name in COMMANDS)

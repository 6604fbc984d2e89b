"""Where ``neardup eval`` finds its data, and ``--list`` saying which datasets are available.

The shared development data is looked for in ``$NEARDUP_SHARED_DATA``, else beside the
checkout (``../shared/data``), and in ``<cache>/data``; the checkout is the source tree of the
package, or the current directory when neardup is installed as a wheel. Every test points
the variables at folders of its own (the suite never reads the real shared data).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from neardup.evaluation import datasets
from neardup.ingest.cli import main
from neardup.ingest.settings import Settings

ROOT = Path(__file__).resolve().parents[2]


def test_project_root_is_the_checkout_or_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert datasets.project_root() == ROOT  # the source tree (pip install -e)
    installed = tmp_path / "venv" / "lib" / "site-packages" / "neardup" / "evaluation"
    installed.mkdir(parents=True)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert datasets.project_root(installed) == work  # a wheel: run from a checkout


def _settings(shared: Path, cache: Path) -> Settings:
    return Settings.from_env({"NEARDUP_SHARED_DATA": str(shared), "NEARDUP_CACHE": str(cache)})


def test_a_shared_file_is_found_in_the_shared_folder_or_the_cache(tmp_path: Path) -> None:
    shared, cache = tmp_path / "shared", tmp_path / "cache"
    (shared / "pawsx_zh").mkdir(parents=True)
    (cache / "data").mkdir(parents=True)
    (shared / "pawsx_zh" / "dev_2k.tsv").write_text("id\tsentence1\tsentence2\tlabel\n")
    (cache / "data" / "webis_dev_pairs.jsonl.gz").write_bytes(b"")
    settings = _settings(shared, cache)
    assert datasets.shared_file("pawsx_zh/dev_2k.tsv", settings).parent.parent == shared
    assert datasets.shared_file("webis_dev_pairs.jsonl.gz", settings).parent == cache / "data"
    with pytest.raises(datasets.DatasetUnavailable) as err:
        datasets.shared_file("manpages_zh_CN_vs_TW_pairs.tsv", settings)
    message = str(err.value)
    assert str(shared) in message and str(cache / "data") in message
    assert "NEARDUP_SHARED_DATA" in message


def test_list_marks_each_dataset_available_or_not_with_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shared, cache = tmp_path / "shared", tmp_path / "cache"
    (shared / "pawsx_zh").mkdir(parents=True)
    for split in ("dev", "test"):
        (shared / "pawsx_zh" / f"{split}_2k.tsv").write_text("id\tsentence1\tsentence2\tlabel\n")
    (cache / "data").mkdir(parents=True)
    (cache / "data" / "people_daily_199801.plain.txt.gz").write_bytes(b"")
    monkeypatch.setenv("NEARDUP_SHARED_DATA", str(shared))
    monkeypatch.setenv("NEARDUP_CACHE", str(cache))
    for var in [v for v in os.environ if v.startswith("NEARDUP_DEB_")]:
        monkeypatch.delenv(var)  # the Debian packages come from the (empty) cache
    assert main(["eval", "--list"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line for line in out.splitlines()[2:] if not line.startswith(" ")}
    assert set(rows) == set(datasets.DATASETS)
    available = {name: row.split()[3] for name, row in rows.items()}
    assert available == {
        "synthetic-zh": "yes", "synthetic-zh-corpus": "yes", "pawsx": "yes",
        "synthetic-en": "no", "synthetic-en-corpus": "no", "pydoc": "no", "manpages": "no",
        "webis-dev": "no",
    }  # fmt: skip
    assert "needs python3.11-doc (run `scripts/fetch_data.py fetch python3.11-doc`)" in out
    assert "needs manpages-zh (run `scripts/fetch_data.py fetch manpages-zh`)" in out
    assert "needs webis_dev_pairs.jsonl.gz from the shared data" in out
    assert str(shared) in out

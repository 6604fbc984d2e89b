"""The tests' own data: fetched by scripts/fetch_data.py into the cache, never ../shared."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from neardup.evaluation import datasets as ds

ROOT = Path(__file__).resolve().parent.parent


def _fetch_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fetch_data", ROOT / "scripts/fetch_data.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fetch_data"] = module
    spec.loader.exec_module(module)
    return module


def test_opening_the_shared_data_raises() -> None:
    with pytest.raises(PermissionError, match="shared development data"):
        open(ROOT.parent / "shared" / "data" / "README.md", encoding="utf-8")  # noqa: SIM115


def test_pos_tags_are_stripped() -> None:
    fetch_data = _fetch_script()
    line = "迈向/v  充满/v  希望/n  的/u  新/a  世纪/n  ——/w  １９９８年/t  ＡＢ/nx  １/２/m"
    assert fetch_data.strip_pos_tags(line) == "迈向充满希望的新世纪——１９９８年ＡＢ１/２"
    assert fetch_data.strip_pos_tags("") == ""
    assert fetch_data._targets(["tests"]) == ["people-daily", "manpages-zh", "python3.11-doc"]
    assert fetch_data._targets(["all", "people-daily"]) == [
        "people-daily",
        "python3.11-doc",
        "manpages-zh",
    ]
    with pytest.raises(SystemExit):
        fetch_data._targets(["webis"])


def test_people_daily_is_the_derived_text(people_daily: Path) -> None:
    import gzip
    import hashlib

    fetch_data = _fetch_script()
    text = gzip.decompress(people_daily.read_bytes())
    assert hashlib.sha256(text).hexdigest() == fetch_data.PEOPLE_DAILY_TEXT_SHA256
    assert text.count(b"\n") == 19484


def test_missing_sources_name_the_script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The product only reads the cache: it never runs apt-get or pip itself."""
    monkeypatch.setenv("NEARDUP_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("NEARDUP_SHARED_DATA", str(tmp_path / "none"))
    monkeypatch.delenv("NEARDUP_DEB_MANPAGES_ZH", raising=False)
    ds.people_daily_paragraphs.cache_clear()
    try:
        with pytest.raises(ds.DatasetUnavailable, match="scripts/fetch_data.py fetch people-daily"):
            ds.people_daily_paragraphs()
    finally:
        ds.people_daily_paragraphs.cache_clear()
    with pytest.raises(ds.DatasetUnavailable, match="scripts/fetch_data.py fetch manpages-zh"):
        ds.manpages_dir()
    assert not (tmp_path / "cache").exists()
    assert not hasattr(ds, "subprocess")

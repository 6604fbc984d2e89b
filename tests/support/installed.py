"""neardup as a user installs it: a plain ``pip install .`` of the checkout (a wheel build, not
editable) into a fresh venv, run from the repository's root.

The wheel goes in with ``--no-deps`` (so the install adds exactly what neardup ships); its
dependencies are then the test interpreter's, through one path line in a ``.pth`` file of the
new venv — a path line only, so the ``.pth`` files of that folder, the editable install's among
them, are not read: ``import neardup`` finds the wheel's copy or nothing.
"""

from __future__ import annotations

import os
import subprocess
import sysconfig
import venv
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

__all__ = ["Installed", "install", "top_level"]


@dataclass(frozen=True)
class Installed:
    """A venv holding neardup's wheel: its interpreter and ``bin/``, its site-packages, the
    top-level names the install added there, and what pip and the build printed (``-v``)."""

    python: Path
    bin: Path
    site: Path
    added: frozenset[str]
    build_log: str

    def run(self, *args: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess[str]:
        """``args`` (a command of the venv's ``bin/``, or ``python``), run from the repository's
        root with this environment and ``env``."""
        command = [str(self.bin / args[0]), *args[1:]]
        return subprocess.run(command, cwd=ROOT, env={**os.environ, **env}, capture_output=True,
                              text=True, timeout=timeout)


def top_level(site: Path) -> set[str]:
    """Import names at the top of ``site`` (dist-info folders, .pth files and caches are not)."""
    return {entry.name.split(".")[0] for entry in site.iterdir()
            if not entry.name.endswith((".dist-info", ".pth")) and entry.name != "__pycache__"}


def install(dest: Path) -> Installed:
    """``pip install .`` of the checkout into a new venv at ``dest`` (about a minute: the
    compiled twins are built)."""
    venv.create(dest, with_pip=True)
    python = dest / "bin" / "python"
    site = Path(subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True).stdout.strip())
    before = top_level(site)
    proc = subprocess.run(
        [str(python), "-m", "pip", "install", "-v", "--no-deps", str(ROOT)],
        capture_output=True, text=True, timeout=1200,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    added = frozenset(top_level(site) - before)
    ours = sysconfig.get_paths()
    (site / "neardup-test-dependencies.pth").write_text(
        "".join(f"{path}\n" for path in dict.fromkeys((ours["purelib"], ours["platlib"]))))
    return Installed(python, dest / "bin", site, added, proc.stdout + proc.stderr)


"""Build the Cython extensions and ship mappings/*.json inside the wheel.

Everything else lives in pyproject.toml.
"""

import shutil
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_py import build_py as _build_py

ROOT = Path(__file__).resolve().parent


class build_py(_build_py):
    """Copy mappings/ (index templates, Dashboards objects) to ingest/_mappings in the build."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib, "ingest", "_mappings")
        target.mkdir(parents=True, exist_ok=True)
        for path in sorted(ROOT.joinpath("mappings").rglob("*.*json")):
            dest = target / path.relative_to(ROOT / "mappings")
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, dest)


setup(
    cmdclass={"build_py": build_py},
    ext_modules=cythonize(
        [
            Extension("verifier._lcs", ["verifier/_lcs.pyx"], extra_compile_args=["-O3"]),
            Extension("ingest._fingerprint", ["ingest/_fingerprint.pyx"], extra_compile_args=["-O3"]),
        ],
        compiler_directives={
            "language_level": "3",
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    ),
)

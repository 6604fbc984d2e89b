"""The compiled twins, which pyproject.toml cannot declare but as an experimental table:
every ``.pyx`` of the package is an extension module of its name
(``src/neardup/verifier/_lcs.pyx`` → ``neardup.verifier._lcs``), built with -O3; the compiler
directives sit in the ``# cython:`` header of each .pyx. Everything else is in pyproject.toml.
"""

from glob import glob
from pathlib import Path

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            ".".join(Path(source).relative_to("src").with_suffix("").parts),
            [source],
            extra_compile_args=["-O3"],
        )
        for source in sorted(glob("src/neardup/**/*.pyx", recursive=True))
    ]
)

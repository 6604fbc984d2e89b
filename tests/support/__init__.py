"""What the tests share: helpers, stand-ins and test data, imported as ``support.<module>``.

``support`` is importable the way every test module is: ``tests/`` holds the rootdir
``conftest.py`` and no ``__init__.py``, so pytest (``prepend`` import mode) puts ``tests/`` on
``sys.path`` before it collects anything. No test touches ``sys.path``, and no test module
imports another test module (or a ``conftest``): what two test files need lives here
(``tests/test_layout.py`` checks both).

* :mod:`support.ci` — ``IN_CI``; a missing service, data set or compiled extension is a skip
  elsewhere and a failure under ``CI=true``;
* :mod:`support.wait` — :func:`~support.wait.wait_for`, the one way a test waits;
* :mod:`support.testdata` — the real data, fetched into the cache by ``scripts/fetch_data.py``;
* :mod:`support.corpus` — a labelled near-duplicate corpus from People's Daily;
* :mod:`support.workers` — real Celery worker processes on a queue of their own;
* :mod:`support.ingest` — ``neardup ingest`` runs, fed from a file or a pipe, and what they stored;
* :mod:`support.server` — a real ``neardup serve`` process;
* :mod:`support.installed` — a plain ``pip install .`` into a venv of its own, run from the root;
* :mod:`support.indices` — deleting a test's indices and templates by exact name;
* :mod:`support.engines` — the search engines of the compatibility suite;
* :mod:`support.fakes`, :mod:`support.badinput` — stand-ins and the bad-input corpus for unit tests.
"""

"""Fixtures for tests against the real OpenSearch node (scripts/opensearch.sh).

- ``os_client``: an ``opensearchpy.OpenSearch`` client for the session;
- ``index_name``: a fresh, unique index name per test (``neardup-test-<hex>``). Everything
  the test creates under that name — the index, ``<name>-*`` indices (the stoplist index),
  and index/component templates named ``<name>`` or ``<name>-*`` — is deleted afterwards, by
  exact name; nothing else on the node is touched;
- ``os_store``: an installed :class:`~neardup.ingest.store.opensearch.OpenSearchStore` on
  ``index_name`` (stoplist cache disabled, so a test sees its own stoplist at once);
- ``engine``, ``engine_index``, ``engine_store``: the same on every engine of the
  compatibility suite;
- ``stack``: a running ``neardup serve`` and two workers; ``labelled``, ``grouped``: pages
  sent to it, and their groups (the server and inspector tests).

Every test under tests/integration is marked ``integration``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.ci import unavailable
from support.corpus import corpus as labelled_corpus
from support.engines import ENGINES, selected
from support.indices import wipe
from support.security import SECURED, running, selected_secured
from support.server import MAX_BODY, Stack, bulk_actions, server_env, start_server, stop
from support.workers import Workers, cleanup_broker, worker_env

INDEX_PREFIX = "neardup-test-"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.integration)


@pytest.fixture
def staging(redis_url: str) -> Iterator[Any]:
    """A :class:`neardup.ingest.workers.staging.BatchStaging` on a real redis-server (database 7)
    under a unique index name; its keys are removed afterwards."""
    from neardup.ingest.workers.staging import BatchStaging

    base = redis_url.rpartition("/")[0]
    staged = BatchStaging.from_url(f"{base}/7", f"test-{uuid.uuid4().hex[:8]}")
    yield staged
    staged.clear()


@pytest.fixture
def forest(staging: Any) -> Iterator[Any]:
    """The :class:`neardup.ingest.workers.forest.RedisGroupForest` beside :func:`staging` (the
    same client and index); its keys are removed afterwards."""
    from neardup.ingest.workers.forest import RedisGroupForest

    groups = RedisGroupForest(staging.redis, staging.index)
    yield groups
    groups.clear()


@pytest.fixture(scope="session")
def os_client(opensearch_url: str) -> Iterator[Any]:
    """A client of the development node (skips, or fails under CI, when it is not there)."""
    from opensearchpy import OpenSearch

    client = OpenSearch(opensearch_url, timeout=60, max_retries=2, retry_on_timeout=True)
    client.cluster.health(wait_for_status="yellow")
    yield client
    client.close()


@pytest.fixture
def index_name(os_client: Any) -> Iterator[str]:
    """A unique index name for this test; its indices and templates are wiped afterwards."""
    name = f"{INDEX_PREFIX}{uuid.uuid4().hex[:12]}"
    wipe(os_client, name)
    yield name
    wipe(os_client, name)


@pytest.fixture
def os_store(os_client: Any, index_name: str) -> Iterator[Any]:
    """An installed OpenSearchStore on ``index_name``."""
    from neardup.ingest.store.opensearch import OpenSearchStore

    store = OpenSearchStore(os_client, index_name, stoplist_ttl=0.0)
    store.install()
    yield store


# --- a small labelled corpus with near-duplicates -------------------------------------------

BOILERPLATE = "".join(
    f"本网站第{n}条声明：未经书面授权，任何单位和个人不得转载、摘编或以其他方式使用本网站内容。"
    for n in range(1, 13)
)


def people_daily_corpus(source: Path, articles: int = 160, seed: int = 7) -> list[dict[str, Any]]:
    """Documents built from People's Daily (January 1998, one paragraph per line, ``source``).

    ``articles`` originals of 6 consecutive paragraphs, then near-duplicate variants of most
    of them (a paragraph dropped, characters edited, a paragraph appended), copies shifted by
    three paragraphs (partial overlap), a site-template footer on a third of the originals
    (fingerprints concentrated on two sites: stoplist material) and a few one-paragraph
    documents (no fingerprints). Each dict: ``id``, ``text``, ``site``, ``seq``, and
    ``twin_of`` (the original of a variant, else None). Deterministic for a given ``seed``.
    """
    import gzip
    import random

    rng = random.Random(seed)
    with gzip.open(source, "rt", encoding="utf-8") as fh:
        paragraphs = []
        for line in fh:
            line = line.strip()
            if len(line) >= 40:
                paragraphs.append(line)
            if len(paragraphs) >= articles * 6 + 40:
                break
    docs: list[dict[str, Any]] = []

    def add(doc_id: str, paras: list[str], site: str, twin_of: str | None = None) -> None:
        docs.append(
            {
                "id": doc_id,
                "text": "\n".join(paras),
                "site": site,
                "seq": len(docs),
                "twin_of": twin_of,
            }
        )

    originals = []
    for a in range(articles):
        paras = paragraphs[a * 6 : a * 6 + 6]
        if a % 3 == 0:
            paras = [*paras, BOILERPLATE]
            site = f"portal{a % 2}.example.cn"
        else:
            site = f"site{a % 11}.example.cn"
        originals.append(paras)
        add(f"a{a:03d}", paras, site)
    for a, paras in enumerate(originals):
        kind = a % 4
        if kind == 3:
            continue
        variant = list(paras)
        if kind == 0:
            del variant[rng.randrange(len(variant))]
        elif kind == 1:
            i = rng.randrange(len(variant))
            chars = list(variant[i])
            for _ in range(3):
                chars[rng.randrange(len(chars))] = "某"
            variant[i] = "".join(chars)
        else:
            variant.append(paragraphs[-1 - a % 40])
        add(f"a{a:03d}-v", variant, f"mirror{a % 5}.example.com", twin_of=f"a{a:03d}")
    for a in range(0, articles - 1, 6):
        add(f"s{a:03d}", paragraphs[a * 6 + 3 : a * 6 + 9], "shifted.example.org")
    for i in range(5):
        add(f"short{i}", [paragraphs[i * 7][:30]], "short.example.org")
    return docs


@pytest.fixture(scope="session")
def corpus(people_daily: Path) -> list[dict[str, Any]]:
    """:func:`people_daily_corpus` on People's Daily from the cache (~310 documents)."""
    return people_daily_corpus(people_daily)


def to_stored(docs: list[dict[str, Any]]) -> list[Any]:
    """StoredDocuments with the real fingerprints (web profile) of the corpus texts."""
    from neardup.ingest.fingerprint import PROFILES, fingerprints
    from neardup.ingest.store.base import StoredDocument

    config = PROFILES["web"]
    return [
        StoredDocument(
            id=d["id"],
            body=d["text"],
            fingerprints=fingerprints(d["text"], config),
            fp_config=config.identity,
            seq=d["seq"],
            site=d["site"],
            url=f"http://{d['site']}/{d['id']}.html",
            title=d["text"][:20],
        )
        for d in docs
    ]


@pytest.fixture(scope="session")
def stored_corpus(corpus: list[dict[str, Any]]) -> list[Any]:
    """The corpus as StoredDocuments with real fingerprints (same order, ``seq`` = position)."""
    return to_stored(corpus)


@pytest.fixture(scope="session")
def fingerprinted() -> Any:
    """:func:`to_stored`, for tests that build their own documents."""
    return to_stored


# --- every engine: OpenSearch 2 and 3, Elasticsearch 8 and 9 (tests/support/engines.py) ---


@pytest.fixture(scope="session", params=selected() + selected_secured())
def engine(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Any]:
    """One engine of :mod:`support.engines`, answering on its port: started by its script for
    the tests that take it (and stopped after them when this session started it). The same
    engines with security on (:mod:`support.security`, ``<name>-security``) are started afresh
    with the role of docs/security.md, and their clients connect as a user holding only it."""
    if request.param in SECURED:
        with running(request.param, tmp_path_factory.mktemp(request.param)) as node:
            yield node
        return
    chosen = ENGINES[request.param]
    was_up = chosen.run("status").returncode == 0
    if not was_up:
        proc = chosen.run("start")
        if proc.returncode != 0:
            unavailable(f"{chosen.name}: scripts/{chosen.script} start failed: "
                        f"{proc.stderr[-3000:]}")
    yield chosen
    if not was_up and chosen.name != "opensearch-2":
        chosen.run("stop")


@pytest.fixture
def engine_index(engine: Any) -> Iterator[str]:
    """A unique index name on ``engine``; its indices and templates are deleted afterwards, by
    exact name, over HTTP (the same requests on every engine; with security on, by the
    superuser, under the documented role's index pattern)."""
    import urllib3

    name = f"{engine.index_prefix}{uuid.uuid4().hex[:12]}"
    yield name
    admin = engine.admin_env
    http = urllib3.PoolManager(ca_certs=admin.get("OPENSEARCH_CA_CERTS"))
    headers = {}
    if admin.get("OPENSEARCH_USER"):
        headers = urllib3.make_headers(
            basic_auth=f"{admin['OPENSEARCH_USER']}:{admin['OPENSEARCH_PASSWORD']}"
        )
    for path in (
        f"{name},{name}-stoplist,{name}-fingerprints?ignore_unavailable=true",
        f"_index_template/{name}",
        f"_index_template/{name}-stoplist",
        f"_index_template/{name}-fingerprints",
        f"_component_template/{name}-settings",
        f"_component_template/{name}-mappings",
    ):
        http.request("DELETE", f"{engine.url}/{path}", headers=headers)


@pytest.fixture
def engine_store(engine: Any, engine_index: str) -> Iterator[Any]:
    """An installed store (the backend detected at ``engine.url``) on ``engine_index``."""
    from neardup.ingest.settings import Settings
    from neardup.ingest.store import open_store

    settings = Settings.from_env(engine.client_env)
    store = open_store("engine", settings, index=engine_index, stoplist_ttl=0.0)
    store.install()
    yield store
    store.close()


# --- a running `neardup serve` with its workers (tests/support/server.py) ---------------------


@pytest.fixture(scope="module")
def stack(
    opensearch_url: str, redis_url: str, os_client: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    """``neardup serve`` with a token and a 1 MiB body limit (:data:`support.server.MAX_BODY`),
    and two worker processes (tests/support/workers.py), on a fresh index, queue and Redis DB;
    everything is stopped and deleted afterwards."""
    name = f"neardup-test-serve-{uuid.uuid4().hex[:10]}"
    token = "test-token-" + uuid.uuid4().hex[:8]
    logs = tmp_path_factory.mktemp("serve-logs")
    wenv = worker_env(redis_url, opensearch_url, name)
    env = server_env(wenv["NEARDUP_QUEUE"], opensearch_url, wenv["CELERY_BROKER_URL"], name)
    env.update(wenv)
    workers = Workers(wenv, logs)
    server = None
    try:
        server, url = start_server(env, logs, "server", token, "--max-body", str(MAX_BODY))
        workers.start(2)
        yield Stack(url, name, wenv["NEARDUP_QUEUE"], token, logs, opensearch_url, [server],
                    wenv["CELERY_BROKER_URL"])
    finally:
        if server is not None:
            stop(server)
        workers.stop()
        wipe(os_client, name)
        cleanup_broker(wenv)


@pytest.fixture(scope="module")
def labelled(people_daily: Path) -> list[dict[str, Any]]:
    """40 pages in labelled near-duplicate groups (tests/support/corpus.py), for the ``stack``
    (test_workers_e2e.py has a ``labelled`` file of its own)."""
    return labelled_corpus(40, seed=2024)


@pytest.fixture(scope="module")
def grouped(stack: Stack, labelled: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The labelled pages sent to the ``stack`` (again: a noop after the bulk test) and
    grouped."""
    from opensearchpy import OpenSearch, helpers

    client = OpenSearch(stack.url, headers=stack.auth, timeout=120)
    assert helpers.bulk(client, bulk_actions(labelled)) == (len(labelled), [])
    docs = stack.wait_grouped([d["id"] for d in labelled])
    stack.refresh()
    return docs

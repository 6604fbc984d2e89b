"""Latency of collapsed search at scale: the plain query, the engine's collapse on the
``keyword`` ``dup_group`` and on a numeric key, the window collapse ``neardup search`` uses, and
``neardup search`` as shipped before and now.

    python bench/collapse.py [--docs 1000000] [--queries 300] [--warmup 60] [--segments 1]
                             [--size 10] [--members 5] [--url URL] [--index NAME] [--keep]
                             [--reuse]

The index: ``--docs`` pages (default a million) into an index made from the project's own
templates (``open_store("engine", ...).install()``), by plain ``helpers.bulk`` of pages carrying
what a grouped page carries for search — ``id``, ``url``, ``site``, ``title``, ``body``, ``seq``,
``status``, ``dup_group`` (the group's earliest page), ``dup_of``, ``resemble``, ``contain`` — and
no fingerprints (search never reads them); plus ``dup_key``, a numeric group key (63 bits of
the BLAKE2b digest of ``dup_group``, :func:`group_key`) that the bench maps on its own index to
compare a collapse on a ``long`` with one on the ``keyword``. The pages are those of
``bench/_pipeline_corpus.py`` (People's Daily articles in near-duplicate groups of 1-5 under
site templates), made here one group at a time — never a list of them all — and spread by a
shuffle window of ``--window`` pages (a group's pages arrive apart, as crawled; ``seq`` is the
arrival order, so the first page of a group to arrive is its root). Refresh is off while
loading; then the index is refreshed and measured at each ``--segments`` count in turn
(``0``: as loaded; ``N``: force-merged to N).

The queries: ``--queries`` two-word queries (two two-character words of a paragraph; the
standard analyzer makes each character a term), after ``--warmup`` others. Each query runs every
kind once, kinds interleaved, so that drift touches them alike:

* ``plain`` — the query ``neardup search`` sends (``multi_match`` on ``title^2``/``body``, the
  ``exists dup_group`` filter, 10 hits, the listed ``_source`` fields), without collapse, as a
  plain search sends it (totals counted up to 10,000); ``plain_nototal`` — the same without
  counting (``track_total_hits: false``);
* ``collapse_keyword`` / ``collapse_long`` — the engine's collapse of that query on
  ``dup_group`` / ``dup_key``;
* ``collapse_window`` — :meth:`~neardup.ingest.store.roles.EngineReads.top_groups`: the best 5 × 10
  hits, doc values only, the first of each group kept (the engine's collapse when they hold
  fewer than 10 groups);
* ``search_before`` — ``neardup search`` as shipped before: collapse on ``dup_group`` with
  ``inner_hits`` (``--members`` matching members by ``seq``: one more search per group), then
  the groups' sizes (a terms aggregation on ``dup_group``) — its two requests, replayed here;
* ``search_msearch`` — the window collapse, then one ``_msearch`` of the members (the query
  filtered to the shown groups, a terms aggregation with ``top_hits``), the groups' sizes and
  the shown pages: the alternative not shipped;
* ``search`` — :func:`neardup.ingest.commands.search.search` as shipped: the window collapse,
  then one search of the shown groups' sizes, matching counts and members, and the shown pages
  (:func:`~neardup.ingest.store.query.build_group_details_query`).

Per kind, p50/p99 of the client's wall time (request to parsed answer) and of the engine's
``took`` (summed over a kind's requests), as JSON lines, then a summary with each p50 as a
ratio to ``plain``'s. Checks, per query: the three collapses give the same groups in the same
order, and ``search`` prints what ``search_before`` printed (hit, group, title, size, matching
count, members).

The node: ``--url``, else ``$OPENSEARCH_URL`` (an empty value counts as unset); OpenSearch
(opensearch-py's per-request ``request_timeout``). The index is deleted at the end (``--keep``
keeps it; ``--reuse`` measures an index of that name already holding ``--docs`` pages).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import random
import re
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from _pipeline_corpus import SITES, made_groups, paragraphs

from neardup.ingest.commands.search import search
from neardup.ingest.settings import Settings
from neardup.ingest.store import client_from_env, engine_settings, open_store
from neardup.ingest.store.query import GROUP_FIELD, build_collapse_search
from neardup.ingest.templates import template_names

HOSTS = {s: f"www.site{i}.cn" for i, s in enumerate(SITES)}
# the numeric group key the bench adds to its own index, to collapse on a ``long``
GROUP_KEY = "dup_key"
_CJK = re.compile(r"[\u4e00-\u9fff]{2}")


def _emit(record: dict[str, Any]) -> None:
    print(json.dumps(record, ensure_ascii=False), flush=True)


def group_key(group: str) -> int:
    """A group's numeric key: the first 63 bits of the 8-byte BLAKE2b digest of its id (UTF-8),
    a non-negative ``long`` (two of n groups share one with probability about n²/2⁶⁴)."""
    return int.from_bytes(hashlib.blake2b(group.encode(), digest_size=8).digest(), "big") >> 1


# --- the pages ------------------------------------------------------------------------------


def _groups(n_docs: int, seed: int) -> Iterator[list[dict[str, Any]]]:
    """The pages of ``bench_corpus(n_docs, seed)``'s recipe, one group (a list of pages) at a
    time, unshuffled: ``{"id", "group", "title", "body", "site"}``."""
    for g, (title, variants) in enumerate(made_groups(n_docs, random.Random(seed))):
        yield [{"id": f"g{g:07d}-{v}", "group": g, "title": title, "body": body, "site": site}
               for v, (body, site) in enumerate(variants)]


def pages(n_docs: int, seed: int = 2024, window: int = 20_000) -> Iterator[dict[str, Any]]:
    """``n_docs`` pages as indexed (``_source``), in arrival order: the groups' pages spread by
    a shuffle window of ``window`` pages. A group's root is its first page to arrive."""
    rng = random.Random(seed + 1)
    buffer: list[dict[str, Any]] = []
    left: dict[int, int] = {}  # pages of a group not out yet
    roots: dict[int, str] = {}
    seq = 0

    def out(page: dict[str, Any]) -> dict[str, Any]:
        nonlocal seq
        g = page.pop("group")
        root = roots.setdefault(g, page["id"])
        left[g] -= 1
        if not left[g]:
            del left[g], roots[g]
        seq += 1
        dup = root != page["id"]
        return {**page, "url": f"https://{HOSTS[page['site']]}/{page['id']}.html", "seq": seq,
                "status": "grouped", "fp_config": "bench", "dup_group": root,
                "dup_key": group_key(root), "dup_of": root if dup else None,
                "resemble": 0.9 if dup else None, "contain": 0.95 if dup else None}

    for group in _groups(n_docs, seed):
        left[group[0]["group"]] = len(group)
        for page in group:
            buffer.append(page)
            if len(buffer) >= window:
                i = rng.randrange(len(buffer))
                buffer[i], buffer[-1] = buffer[-1], buffer[i]
                yield out(buffer.pop())
    rng.shuffle(buffer)
    for page in buffer:
        yield out(page)


def queries(n: int, seed: int = 7) -> list[str]:
    """``n`` two-word queries: two two-character CJK words of one paragraph."""
    paras = paragraphs()
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        words = _CJK.findall(rng.choice(paras))
        if len(words) >= 2:
            out.append(" ".join(rng.sample(words, 2)))
    return out


# --- the index ------------------------------------------------------------------------------


def build_index(client: Any, settings: Settings, index: str, n_docs: int, chunk: int,
                window: int) -> dict[str, Any]:
    helpers = importlib.import_module(type(client).__module__.split(".")[0] + ".helpers")
    store = open_store("engine", settings, client=client, index=index)
    store.install()
    client.indices.put_mapping(index=index, body={"properties": {GROUP_KEY: {"type": "long"}}})
    client.indices.put_settings(index=index, body={"index": {"refresh_interval": "-1"}})
    t0 = time.perf_counter()
    ok, errors = helpers.bulk(
        client, ({"_index": index, "_id": p["id"], "_source": p}
                 for p in pages(n_docs, window=window)),
        chunk_size=chunk, raise_on_error=False,
    )
    load_s = time.perf_counter() - t0
    if errors or ok != n_docs:
        raise SystemExit(f"bulk: {ok} of {n_docs} indexed; first errors: {errors[:3]}")
    client.indices.put_settings(index=index, body={"index": {"refresh_interval": "1s"}})
    client.indices.refresh(index=index, request_timeout=600)
    return {"docs": ok, "load_s": round(load_s, 1), "docs_s": round(ok / load_s)}


def index_stats(client: Any, index: str) -> dict[str, Any]:
    p = client.indices.stats(index=index)["indices"][index]["primaries"]
    groups = client.search(index=index, body={
        "size": 0, "track_total_hits": True,
        "aggs": {"g": {"cardinality": {"field": GROUP_KEY, "precision_threshold": 40000}}},
    }, request_timeout=300)
    return {"docs": p["docs"]["count"], "segments": p["segments"]["count"],
            "store_mb": round(p["store"]["size_in_bytes"] / 2**20),
            "groups_approx": groups["aggregations"]["g"]["value"]}


def drop(client: Any, index: str) -> None:
    client.indices.delete(index=f"{index},{index}-stoplist", ignore_unavailable=True)
    names = template_names(index)
    for call, name in ((client.indices.delete_index_template, names["pages-template"]),
                       (client.indices.delete_index_template, names["stoplist-template"]),
                       (client.cluster.delete_component_template, names["pages-settings"]),
                       (client.cluster.delete_component_template, names["pages-mappings"])):
        try:
            call(name=name)
        except Exception:  # noqa: BLE001 - already gone
            pass


# --- the query kinds ------------------------------------------------------------------------


class Took:
    """The engine's ``took`` of every answer through ``client`` since :meth:`reset` (the
    transport's ``perform_request`` wrapped once)."""

    def __init__(self, client: Any) -> None:
        self.ms = 0
        self.requests = 0
        transport = client.transport
        perform = transport.perform_request

        def timed(*args: Any, **kwargs: Any) -> Any:
            answer = perform(*args, **kwargs)
            if isinstance(answer, dict) and isinstance(answer.get("took"), int):
                self.ms += answer["took"]
                self.requests += 1
            return answer

        transport.perform_request = timed

    def reset(self) -> None:
        self.ms = 0
        self.requests = 0


def _old_output(hits: list[dict[str, Any]], sizes: dict[str, int]) -> list[dict[str, Any]]:
    """What ``neardup search`` printed before ``dup_key`` (its ``search()``, as it was)."""
    out = []
    for hit in hits:
        src = hit.get("_source", {})
        inner = hit.get("inner_hits", {}).get("members", {}).get("hits", {})
        total = inner.get("total", {})
        matching = total.get("value") if isinstance(total, dict) else total
        out.append({
            "id": hit["_id"], "dup_group": src.get("dup_group"), "score": hit.get("_score"),
            "title": src.get("title"), "url": src.get("url"),
            "group_size": sizes.get(src.get("dup_group"), matching), "matching": matching,
            "members": [{"id": m["_id"], **{k: m["_source"].get(k) for k in (
                "dup_of", "resemble", "contain", "url")}} for m in inner.get("hits", [])],
        })
    return out


def kinds(client: Any, store: Any, index: str, size: int, members: int
          ) -> dict[str, Callable[[str], Any]]:
    def body(q: str, key: str | None) -> dict[str, Any]:
        b = build_collapse_search(q, size=size, inner_hits_size=0)
        if key is None:
            del b["collapse"]
        else:
            b["collapse"] = {"field": key}
        return b

    def groups_of(hits: list[dict[str, Any]]) -> list[str]:
        return [h["_source"][GROUP_FIELD] for h in hits]

    def plain(q: str) -> Any:
        return client.search(index=index, body=body(q, None))["hits"]["hits"]

    def collapse_keyword(q: str) -> Any:
        return groups_of(client.search(index=index, body=body(q, GROUP_FIELD))["hits"]["hits"])

    def collapse_long(q: str) -> Any:
        return groups_of(client.search(index=index, body=body(q, GROUP_KEY))["hits"]["hits"])

    def search_before(q: str) -> Any:
        b = build_collapse_search(q, size=size, inner_hits_size=members)
        hits = client.search(index=index, body=b)["hits"]["hits"]
        sizes: dict[str, int] = {}
        if hits:
            ids = sorted(set(groups_of(hits)))
            answer = client.search(index=index, body={
                "size": 0, "track_total_hits": False,
                "query": {"bool": {"filter": [{"terms": {GROUP_FIELD: ids}}]}},
                "aggs": {"groups": {"terms": {"field": GROUP_FIELD, "size": len(ids)}}},
            })
            sizes = {b["key"]: b["doc_count"]
                     for b in answer["aggregations"]["groups"]["buckets"]}
        return _old_output(hits, sizes)

    def collapse_window(q: str) -> Any:
        return [t["dup_group"] for t in store.top_groups(q, size=size)]

    def search_msearch(q: str) -> Any:
        top = store.top_groups(q, size=size)
        if not top:
            return []
        ids = sorted({t["dup_group"] for t in top})
        query = body(q, None)["query"]
        query["bool"]["filter"] = [{"terms": {GROUP_FIELD: ids}}]
        return client.msearch(index=index, body=[
            {}, {"size": 0, "track_total_hits": False, "query": query, "aggs": {"groups": {
                "terms": {"field": GROUP_FIELD, "size": len(ids), "execution_hint": "map"},
                "aggs": {"members": {"top_hits": {
                    "size": members, "sort": [{"seq": "asc"}, {"id": "asc"}],
                    "_source": ["id", "url", "dup_of", "resemble", "contain"]}}}}}},
            {}, {"size": 0, "track_total_hits": False,
                 "query": {"bool": {"filter": [{"terms": {GROUP_FIELD: ids}}]}},
                 "aggs": {"groups": {"terms": {"field": GROUP_FIELD, "size": len(ids),
                                               "execution_hint": "map"}}}},
            {}, {"size": len(top), "track_total_hits": False,
                 "query": {"ids": {"values": [t["id"] for t in top]}},
                 "_source": body(q, None)["_source"]},
        ])["responses"]

    def shipped(q: str) -> Any:
        return search(store, q, size=size, members=members)

    def plain_nototal(q: str) -> Any:
        b = body(q, None)
        b["track_total_hits"] = False
        return client.search(index=index, body=b)["hits"]["hits"]

    return {"plain": plain, "plain_nototal": plain_nototal, "collapse_keyword": collapse_keyword,
            "collapse_long": collapse_long, "collapse_window": collapse_window,
            "search_before": search_before, "search_msearch": search_msearch, "search": shipped}


def _quantile(values: list[float], q: float) -> float:
    s = sorted(values)
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def _comparable(rows: list[dict[str, Any]]) -> list[Any]:
    return [(r["id"], r["dup_group"], r["title"], r["group_size"], r["matching"],
             [(m["id"], m["dup_of"], m["resemble"], m["url"]) for m in r["members"]])
            for r in rows]


def measure(run: dict[str, Callable[[str], Any]], took: Took, qs: list[str], warmup: int
            ) -> dict[str, Any]:
    wall: dict[str, list[float]] = {k: [] for k in run}
    engine: dict[str, list[float]] = {k: [] for k in run}
    same_groups = same_output = 0
    for n, q in enumerate(qs):
        got: dict[str, Any] = {}
        for kind, call in run.items():
            took.reset()
            t0 = time.perf_counter()
            got[kind] = call(q)
            elapsed = (time.perf_counter() - t0) * 1000
            if n >= warmup:
                wall[kind].append(elapsed)
                engine[kind].append(took.ms)
        if n >= warmup:
            same_groups += (got["collapse_keyword"] == got["collapse_long"]
                            == got["collapse_window"])
            same_output += _comparable(got["search"]) == _comparable(got["search_before"])
    measured = len(qs) - warmup
    out: dict[str, Any] = {"queries": measured, "same_groups": same_groups,
                           "same_output": same_output, "kinds": {}}
    for kind in run:
        out["kinds"][kind] = {
            "wall_p50_ms": round(_quantile(wall[kind], 0.5), 2),
            "wall_p99_ms": round(_quantile(wall[kind], 0.99), 2),
            "took_p50_ms": round(_quantile(engine[kind], 0.5), 2),
            "took_p99_ms": round(_quantile(engine[kind], 0.99), 2),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=60)
    ap.add_argument("--segments", default="1",
                    help="segment counts to measure at, in turn (0: as loaded; default 1)")
    ap.add_argument("--size", type=int, default=10, help="groups a search shows")
    ap.add_argument("--members", type=int, default=5, help="members shown per group")
    ap.add_argument("--chunk", type=int, default=1000, help="pages per bulk request")
    ap.add_argument("--window", type=int, default=20_000, help="shuffle window (pages)")
    ap.add_argument("--url", default=None, help="the node (default $OPENSEARCH_URL)")
    ap.add_argument("--index", default=None, help="index name (default a fresh one)")
    ap.add_argument("--keep", action="store_true", help="keep the index")
    ap.add_argument("--reuse", action="store_true", help="measure an existing index")
    args = ap.parse_args()
    env = dict(os.environ, **({"OPENSEARCH_URL": args.url} if args.url else {}))
    settings = engine_settings(Settings.from_env(env))
    client = client_from_env(settings=settings, timeout=120)
    index = args.index or f"neardup-bench-collapse-{uuid.uuid4().hex[:8]}"
    took = Took(client)
    summary: dict[str, Any] = {"docs": args.docs, "cpus": os.cpu_count(),
                               "engine": settings.engine}
    try:
        if args.reuse and client.indices.exists(index=index):
            have = client.count(index=index)["count"]
            if have != args.docs:
                raise SystemExit(f"{index} holds {have} pages, not {args.docs}")
        else:
            drop(client, index)
            load = build_index(client, settings, index, args.docs, args.chunk, args.window)
            _emit({"bench": "collapse-load", "index": index, **load})
        store = open_store("engine", settings, client=client, index=index)
        run = kinds(client, store, index, args.size, args.members)
        qs = queries(args.warmup + args.queries)
        for target in (int(s) for s in args.segments.split(",")):
            if target:
                t0 = time.perf_counter()
                client.indices.forcemerge(index=index, max_num_segments=target,
                                          request_timeout=7200)
                client.indices.refresh(index=index)
                _emit({"bench": "collapse-merge", "segments": target,
                       "s": round(time.perf_counter() - t0, 1)})
            stats = index_stats(client, index)
            result = measure(run, took, qs, args.warmup)
            plain = result["kinds"]["plain"]["wall_p50_ms"]
            plain_took = result["kinds"]["plain"]["took_p50_ms"] or 1
            record = {"bench": "collapse", **stats, **result}
            _emit(record)
            summary[f"segments={stats['segments']}"] = {
                k: {"wall_p50_ms": v["wall_p50_ms"], "wall_p99_ms": v["wall_p99_ms"],
                    "x_plain": round(v["wall_p50_ms"] / plain, 2),
                    "took_x_plain": round(v["took_p50_ms"] / plain_took, 2)}
                for k, v in result["kinds"].items()}
    finally:
        if not args.keep:
            drop(client, index)
        client.close()
    _emit({"summary": summary})


if __name__ == "__main__":
    main()

"""OpenSearch Dashboards and Kibana saved objects for looking at near-duplicate groups.

Which file goes to which UI is data, ``mappings/dashboards/targets.json`` (:func:`target`):
``neardup.ndjson`` for OpenSearch Dashboards, ``kibana.ndjson`` for Kibana (Elasticsearch 8+:
a data view, a saved search of one row per group — the representatives, the collapse of the
index on ``dup_group`` — the duplicates, the group-size distribution and a dashboard), with the
header each saved-objects API requires of a write (``osd-xsrf``, ``kbn-xsrf``).

``mappings/dashboards/neardup.ndjson`` holds, in the saved-objects export format, an index
pattern over the pages index (time field ``ingested_at``), a saved search of the duplicates
(documents whose ``dup_of`` exists), visualisations (group-size distribution, largest groups,
duplicates per site, duplicate rate over time, an overview) and a dashboard tying them.

The file is written for the index ``pages``. :func:`retarget` rewrites it for another index
name: the index pattern's title, the index named in the Vega spec, and every object id
(``neardup-pages-...`` becomes ``neardup-<index>-...``, references included), so the objects of
several indices can live side by side in one Dashboards. :func:`import_objects` sends the result
to the saved-objects import API.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

from neardup.ingest.errors import ConfigError, NeardupError
from neardup.ingest.templates import mappings_dir

__all__ = [
    "DashboardsError",
    "ImportResult",
    "SOURCE_INDEX",
    "Target",
    "dumps",
    "import_objects",
    "load",
    "ndjson_path",
    "retarget",
    "target",
]

log = logging.getLogger(__name__)

SOURCE_INDEX = "pages"  # the index name the NDJSON file is written for
_ID_PREFIX = "neardup-{index}-"
NDJSON_NAME = "neardup.ndjson"


class DashboardsError(NeardupError):
    """The saved-objects API refused the import, or could not be reached."""


@dataclass(frozen=True, slots=True)
class Target:
    """Where an engine's saved objects go: the NDJSON file, the UI, its write header."""

    engine: str
    ndjson: str
    product: str
    xsrf_header: str


def target(engine: str = "opensearch", directory: Path | None = None) -> Target:
    """The :class:`Target` of ``engine`` from ``dashboards/targets.json``."""
    path = mappings_dir(directory) / "dashboards" / "targets.json"
    with path.open(encoding="utf-8") as fh:
        table = {k: v for k, v in json.load(fh).items() if not k.startswith("_")}
    if engine not in table:
        raise ConfigError(f"no saved objects for engine {engine!r}; known: {sorted(table)}")
    return Target(engine, **table[engine])


def ndjson_path(directory: Path | None = None, engine: str = "opensearch") -> Path:
    """The engine's NDJSON file (``dashboards/neardup.ndjson`` for OpenSearch) in the mappings
    directory (``directory``, else the packaged one; see :mod:`neardup.ingest.templates`)."""
    base = mappings_dir(directory)
    path = base / "dashboards" / target(engine, directory).ndjson
    if not path.is_file():
        raise ConfigError(
            f"saved objects not found at {path}; set NEARDUP_MAPPINGS_DIR to the directory "
            f"holding dashboards/{path.name}"
        )
    return path


def load(path: Path | None = None) -> list[dict[str, Any]]:
    """The saved objects, one dict per NDJSON line (blank lines skipped)."""
    path = path or ndjson_path()
    objects = []
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                objects.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ConfigError(f"{path}:{lineno}: not a JSON object: {exc}") from exc
    return objects


def _validate_index(index: str) -> None:
    # OpenSearch index-name rules, in the part that matters for an index pattern.
    bad = set('\\/*?"<>| ,#:')
    if not index or index != index.lower() or index[0] in "-_+" or bad & set(index):
        raise ConfigError(
            f'invalid index name {index!r}: lowercase, no spaces or any of \\/*?"<>|,#:, '
            "not starting with -, _ or +"
        )


def _retarget_id(object_id: str, index: str) -> str:
    old = _ID_PREFIX.format(index=SOURCE_INDEX)
    if object_id.startswith(old):
        return _ID_PREFIX.format(index=index) + object_id[len(old) :]
    return object_id


def _retarget_title(title: str, index: str) -> str:
    suffix = f"({SOURCE_INDEX})"
    if title.endswith(suffix):
        return title[: -len(suffix)] + f"({index})"
    return title


def _retarget_vis_state(vis_state: str, index: str) -> str:
    state = json.loads(vis_state)
    if "title" in state:
        state["title"] = _retarget_title(state["title"], index)
    if state.get("type") == "vega":
        # The Vega spec names its index itself instead of referencing the index pattern.
        spec = json.loads(state["params"]["spec"])
        url = spec.get("data", {}).get("url", {})
        if url.get("index") == f"{SOURCE_INDEX}*":
            url["index"] = f"{index}*"
        state["params"]["spec"] = json.dumps(spec, indent=2)
    return json.dumps(state, separators=(",", ":"))


def retarget(objects: Iterable[Mapping[str, Any]], index: str) -> list[dict[str, Any]]:
    """The saved objects rewritten for the pages index ``index`` (a new list; input untouched).

    >>> objs = retarget(load(), "news")
    >>> [o["attributes"]["title"] for o in objs if o["type"] == "index-pattern"]
    ['news*']
    """
    _validate_index(index)
    out = []
    for original in objects:
        obj = copy.deepcopy(dict(original))
        obj["id"] = _retarget_id(obj["id"], index)
        for ref in obj.get("references", []):
            ref["id"] = _retarget_id(ref["id"], index)
        attrs = obj.get("attributes", {})
        if obj["type"] == "index-pattern" and attrs.get("title") == f"{SOURCE_INDEX}*":
            attrs["title"] = f"{index}*"
        elif "title" in attrs:
            attrs["title"] = _retarget_title(attrs["title"], index)
        if "visState" in attrs:
            attrs["visState"] = _retarget_vis_state(attrs["visState"], index)
        out.append(obj)
    return out


def dumps(objects: Iterable[Mapping[str, Any]]) -> str:
    """NDJSON text: one compact object a line, newline-terminated."""
    return "".join(json.dumps(o, ensure_ascii=False, separators=(",", ":")) + "\n" for o in objects)


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What the saved-objects import API answered."""

    success: bool
    success_count: int
    errors: list[dict[str, Any]] = field(default_factory=list)


def import_objects(
    objects: Iterable[Mapping[str, Any]],
    url: str,
    *,
    user: str | None = None,
    password: str | None = None,
    tenant: str | None = None,
    verify: bool | str = True,
    timeout: float = 30.0,
    session: requests.Session | None = None,
    xsrf_header: str = "osd-xsrf",
    product: str = "OpenSearch Dashboards",
) -> ImportResult:
    """POST the objects to ``<url>/api/saved_objects/_import?overwrite=true``.

    The body is ``multipart/form-data`` with one part ``file`` named ``neardup.ndjson``, and the
    ``xsrf_header`` the UI requires of every non-GET API call (``osd-xsrf`` for OpenSearch
    Dashboards, ``kbn-xsrf`` for Kibana: :attr:`Target.xsrf_header`). ``tenant`` sets the
    security plugin's ``securitytenant`` header (e.g. ``global``). Raises
    :class:`DashboardsError` when the request fails or any object is rejected.
    """
    body = dumps(objects).encode("utf-8")
    endpoint = url.rstrip("/") + "/api/saved_objects/_import"
    headers = {xsrf_header: "true"}
    if tenant:
        headers["securitytenant"] = tenant
    auth = (user, password or "") if user else None
    http = session or requests.Session()
    try:
        resp = http.post(
            endpoint,
            params={"overwrite": "true"},
            files={"file": (NDJSON_NAME, body, "application/ndjson")},
            headers=headers,
            auth=auth,
            verify=verify,
            timeout=timeout,
        )
    except requests.RequestException as exc:
        raise DashboardsError(f"cannot reach {product} at {url}: {exc}") from exc
    finally:
        if session is None:
            http.close()
    if resp.status_code >= 400:
        raise DashboardsError(
            f"saved-objects import failed: HTTP {resp.status_code} from {endpoint}: "
            f"{resp.text[:500]}"
        )
    try:
        answer = resp.json()
    except ValueError as exc:
        raise DashboardsError(
            f"saved-objects import: not a JSON answer: {resp.text[:200]}"
        ) from exc
    result = ImportResult(
        success=bool(answer.get("success")),
        success_count=int(answer.get("successCount", 0)),
        errors=list(answer.get("errors", [])),
    )
    if not result.success or result.errors:
        details = "; ".join(
            f"{e.get('type')}/{e.get('id')}: {e.get('error', {}).get('type', e.get('error'))}"
            for e in result.errors
        )
        raise DashboardsError(f"saved-objects import rejected objects: {details or answer}")
    log.info("imported %d saved objects into %s", result.success_count, url)
    return result

"""Index templates for the pages, stoplist and fingerprints indices: JSON data in ``mappings/``, one loader,
one installer.

The files hold ``{index}`` placeholders (index patterns, component-template names) filled with
the configured index name (``NEARDUP_INDEX``, default ``pages``) at installation:

- ``pages-settings.json``, ``pages-mappings.json``: component templates ``{index}-settings``
  and ``{index}-mappings``;
- ``pages-template.json``: composable index template ``{index}`` for ``{index}`` and
  ``{index}-*``, composed of the two;
- ``stoplist-template.json``: index template ``{index}-stoplist`` (higher priority, so the
  ``{index}-*`` pattern of the pages template never applies to it);
- ``fingerprints-template.json``: index template ``{index}-fingerprints`` (higher priority
  too): the workers' candidate index, one small document per page (its fingerprints, ingest
  order and verified text), refreshed by the workers while the pages index keeps its own
  refresh interval (docs/scale.md).

Each file carries ``_meta.version``. :func:`install_templates` puts a template only when the
node has none of that name or an older version, and says what it did.
"""

from __future__ import annotations

import copy
import importlib
import json
import logging
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from neardup.ingest.errors import ConfigError

__all__ = [
    "TEMPLATE_FILES",
    "install_templates",
    "load",
    "mappings_dir",
    "render",
    "template_names",
]

log = logging.getLogger(__name__)

# Installation order matters: component templates before the index template composed of them.
TEMPLATE_FILES = (
    "pages-settings", "pages-mappings", "pages-template", "stoplist-template",
    "fingerprints-template",
)
_COMPONENTS = ("pages-settings", "pages-mappings")


def mappings_dir(directory: Path | None = None) -> Path:
    """Where the JSON files are: ``directory`` (``Settings.mappings_dir``, from
    ``NEARDUP_MAPPINGS_DIR``), else the ``mappings`` package (the repository's ``mappings/``,
    shipped as package data)."""
    if directory is not None:
        return Path(directory)
    packaged = Path(str(files("neardup.mappings")))
    if (packaged / "pages-template.json").is_file():
        return packaged
    raise ConfigError(
        f"index templates not found in {packaged}; "
        "set NEARDUP_MAPPINGS_DIR to the directory holding pages-template.json"
    )


@cache
def _read(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as fh:
        body: dict[str, Any] = json.load(fh)
    return body


def load(name: str, directory: Path | None = None) -> dict[str, Any]:
    """The JSON document ``<name>.json`` of :func:`mappings_dir` (a fresh copy, safe to
    modify)."""
    stem = name.removesuffix(".json")
    path = mappings_dir(directory) / f"{stem}.json"
    if not path.is_file():
        raise ConfigError(f"no mapping file {path.name} in {path.parent}; known: {TEMPLATE_FILES}")
    return copy.deepcopy(_read(path))


def _fill(value: Any, index: str) -> Any:
    if isinstance(value, str):
        return value.replace("{index}", index)
    if isinstance(value, list):
        return [_fill(v, index) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, index) for k, v in value.items()}
    return value


def template_names(index: str) -> dict[str, str]:
    """File stem → template name on the node, for ``index``."""
    return {
        "pages-settings": f"{index}-settings",
        "pages-mappings": f"{index}-mappings",
        "pages-template": index,
        "stoplist-template": f"{index}-stoplist",
        "fingerprints-template": f"{index}-fingerprints",
    }


def render(
    name: str,
    index: str,
    shards: int | None = None,
    replicas: int | None = None,
    directory: Path | None = None,
) -> dict[str, Any]:
    """Template body ``name`` for ``index``; ``shards``/``replicas`` override the defaults
    (1 shard, 0 replicas: a single-node development cluster)."""
    _check_index_name(index)
    body: dict[str, Any] = _fill(load(name, directory), index)
    if name in ("pages-template", "stoplist-template", "fingerprints-template"):
        index_settings = body.setdefault("template", {}).setdefault("settings", {})
        index_settings = index_settings.setdefault("index", {})
        if shards is not None:
            index_settings["number_of_shards"] = int(shards)
        if replicas is not None:
            index_settings["number_of_replicas"] = int(replicas)
    return body


def _check_index_name(index: str) -> None:
    if not index or index != index.lower() or any(c in index for c in ' "*\\<|,>/?#:'):
        raise ConfigError(
            f"invalid index name {index!r}: lowercase, without spaces, wildcards or "
            r"any of \ / * ? \" < > | , # :"
        )


def _installed_version(
    client: Any, kind: str, name: str, not_found: type[Exception]
) -> int | None:
    # A missing template is the normal first run: it is answered without the client's
    # WARNING log line for a failed request (opensearch-py: ``ignore=404``; the
    # Elasticsearch clients: ``options(ignore_status=404)``).
    if hasattr(client, "options"):
        client, quiet = client.options(ignore_status=404), {}
    else:
        quiet = {"ignore": 404}
    try:
        if kind == "component":
            found = client.cluster.get_component_template(name=name, **quiet)
            items = found.get("component_templates", [])
            meta = items[0]["component_template"].get("_meta", {}) if items else {}
        else:
            found = client.indices.get_index_template(name=name, **quiet)
            items = found.get("index_templates", [])
            meta = items[0]["index_template"].get("_meta", {}) if items else {}
    except not_found:
        return None
    if not items:
        return None
    version = meta.get("version")
    return int(version) if version is not None else 0


def install_templates(
    client: Any,
    index: str = "pages",
    shards: int | None = None,
    replicas: int | None = None,
    force: bool = False,
    directory: Path | None = None,
    *,
    not_found: type[Exception] | None = None,
) -> dict[str, str]:
    """Install the component and index templates for ``index`` on the node behind ``client``
    (an OpenSearch or Elasticsearch client, whose 404 error is ``not_found``: by default the
    ``NotFoundError`` of the client's own package).

    A template is put when it is missing, older than the file's ``_meta.version``, or
    ``force`` is set. Returns ``{template name: "installed" | "upgraded" | "unchanged"}``.
    Templates apply when an index is created: an upgrade reaches an existing index only
    after a reindex (or, for added fields, ``put_mapping``).
    """
    if not_found is None:
        package = importlib.import_module(type(client).__module__.split(".")[0])
        not_found = package.NotFoundError
    done: dict[str, str] = {}
    names = template_names(index)
    for stem in TEMPLATE_FILES:
        body = render(stem, index, shards=shards, replicas=replicas, directory=directory)
        name = names[stem]
        kind = "component" if stem in _COMPONENTS else "index"
        wanted = int(body["_meta"]["version"])
        have = _installed_version(client, kind, name, not_found)
        if have is not None and have >= wanted and not force:
            done[name] = "unchanged"
            continue
        if kind == "component":
            client.cluster.put_component_template(name=name, body=body)
        else:
            client.indices.put_index_template(name=name, body=body)
        done[name] = "installed" if have is None else "upgraded"
        log.info("template %s: %s (version %s, was %s)", name, done[name], wanted, have)
    return done

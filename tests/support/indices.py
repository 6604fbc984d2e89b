"""Deleting what a test created on a node, by exact name: nothing else on the node is touched."""

from __future__ import annotations

from typing import Any


def _owned(names: Any, name: str) -> list[str]:
    return sorted(n for n in names if n == name or n.startswith(f"{name}-"))


def wipe(client: Any, name: str) -> None:
    """Delete the indices and templates of test index ``name`` (``name``, ``name-*``; exact
    names only) through an ``opensearchpy`` client."""
    from opensearchpy.exceptions import NotFoundError

    try:
        indices = client.indices.get(index=f"{name},{name}-*", expand_wildcards="open,closed")
    except NotFoundError:
        indices = {}
    for index in _owned(indices, name):
        client.indices.delete(index=index, ignore_unavailable=True)
    try:
        found = client.indices.get_index_template(name=f"{name}*")["index_templates"]
    except NotFoundError:
        found = []
    for template in _owned((t["name"] for t in found), name):
        client.indices.delete_index_template(name=template)
    try:
        found = client.cluster.get_component_template(name=f"{name}*")["component_templates"]
    except NotFoundError:
        found = []
    for template in _owned((t["name"] for t in found), name):
        client.cluster.delete_component_template(name=template)

"""Index templates (pages, stoplist) and OpenSearch Dashboards saved objects, as data.

The JSON/NDJSON files beside this file ship as package data; :mod:`neardup.ingest.templates` and
:mod:`neardup.ingest.dashboards` read them through :func:`importlib.resources.files`.
"""

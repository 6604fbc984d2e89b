"""``neardup dashboards``: OpenSearch Dashboards or Kibana saved objects for the duplicate
groups, chosen by the engine (``neardup --engine``, ``NEARDUP_ENGINE``, else the one answering
at ``OPENSEARCH_URL``): ``mappings/dashboards/neardup.ndjson`` for OpenSearch,
``kibana.ndjson`` for Elasticsearch.

  neardup dashboards import --url http://dashboards:5601 [--index pages]
  neardup dashboards export-ndjson [--index pages] > neardup.ndjson

``import`` posts the objects (index pattern, saved search, visualisations, dashboard) to the
saved-objects API, overwriting earlier versions. Credentials come from
``OPENSEARCH_DASHBOARDS_USER``/``OPENSEARCH_DASHBOARDS_PASSWORD``, else from
``OPENSEARCH_USER``/``OPENSEARCH_PASSWORD`` (the same security plugin usually guards both).
``export-ndjson`` writes the retargeted objects to stdout, for Dashboards' own import page.
Exit status 0 on success, 1 when Dashboards refused the import, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from neardup.ingest import dashboards
from neardup.ingest.cli import command_parser, usage_error
from neardup.ingest.errors import ConfigError
from neardup.ingest.settings import Settings
from neardup.ingest.store.detect import detect
from neardup.ingest.store.errors import AccessDenied, StoreError

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    parser = command_parser(
        subparsers, "dashboards", __doc__.split("\n\n", 1)[1] if __doc__ else None
    )
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    imp = sub.add_parser("import", help="import into OpenSearch Dashboards (overwrite=true)")
    imp.add_argument(
        "--url", required=True, help="OpenSearch Dashboards URL, e.g. http://dashboards:5601"
    )
    imp.add_argument(
        "--tenant", default=None, help="security-plugin tenant (securitytenant header), e.g. global"
    )
    imp.add_argument(
        "--insecure", action="store_true", help="do not verify the server's TLS certificate"
    )
    imp.add_argument("--ca-certs", default=None, help="CA bundle to verify the server with")
    imp.add_argument("--timeout", type=float, default=30.0, help="seconds (default 30)")
    exp = sub.add_parser("export-ndjson", help="write the objects as NDJSON to stdout")
    for p in (imp, exp):
        p.add_argument(
            "--index", default=None, help="pages index name (default $NEARDUP_INDEX or pages)"
        )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:

    index = args.index or settings.index
    try:
        engine = settings.engine or detect(settings.opensearch_url, settings).engine
    except AccessDenied:
        raise  # credentials, TLS: one line and status 1 from neardup's main, as every command
    except StoreError as exc:
        print(
            f"neardup dashboards: which engine? {exc}; name it: neardup --engine "
            "opensearch|elasticsearch dashboards ...",
            file=sys.stderr,
        )
        return 2
    try:
        target = dashboards.target(engine, settings.mappings_dir)
        path = dashboards.ndjson_path(settings.mappings_dir, engine)
        objects = dashboards.retarget(dashboards.load(path), index)
    except ConfigError as exc:
        return usage_error("dashboards", exc)
    if args.action == "export-ndjson":
        sys.stdout.write(dashboards.dumps(objects))
        return 0
    user, password = settings.dashboards_credentials()
    verify: bool | str = False if args.insecure else (args.ca_certs or True)
    try:
        result = dashboards.import_objects(
            objects,
            args.url,
            user=user,
            password=password,
            tenant=args.tenant,
            verify=verify,
            timeout=args.timeout,
            xsrf_header=target.xsrf_header,
            product=target.product,
        )
    except dashboards.DashboardsError as exc:
        print(f"neardup dashboards: {exc}", file=sys.stderr)
        return 1
    print(
        f"imported {result.success_count} saved objects for index {index!r} into "
        f"{target.product} at {args.url}"
    )
    return 0

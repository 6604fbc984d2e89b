"""`neardup` console script: one sub-command per module, found by name in :data:`COMMANDS`.

The commands' modules are :mod:`neardup.ingest.commands`' and, for ``neardup eval``,
:mod:`neardup.evaluation.command` (so ``ingest`` never imports ``evaluation``). Each exposes
``add_parser(subparsers)`` (registers its arguments and sets ``func``) and is imported by name
only when its command runs. ``func(args, settings)`` runs the command with the
:class:`Settings` read here, once, from the environment (see docs/settings.md).

A command that cannot reach OpenSearch or the broker, is refused by the node (credentials,
privileges, an untrusted TLS certificate: docs/security.md), or asks for an index that does
not exist, ends with one line on stderr saying so and what to do (exit status 1), never a
traceback: :func:`service_message`.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any, NamedTuple

from neardup.ingest.errors import ConfigError, redact
from neardup.ingest.settings import Settings


class Command(NamedTuple):
    """A ``neardup`` sub-command: the module that declares and runs it, and its one-line help."""

    module: str  # imported (importlib) only when the command runs
    help: str


# Command name -> its module and one-line help. A command's module is imported only when that
# command runs: ``neardup compare`` never loads a web server, an engine client or a broker, and
# a broken optional dependency of one command never breaks the others.
COMMANDS: dict[str, Command] = {
    "compare": Command(
        "neardup.ingest.commands.compare", "verify pairs of pages (TLCS resemble/contain rates)"
    ),
    "dedup": Command(
        "neardup.ingest.commands.dedup", "group the near-duplicates of a JSONL, WARC or WET file"
    ),
    "ingest": Command(
        "neardup.ingest.commands.ingest",
        "accept pages; workers index each one once, with its dup_group",
    ),
    "backfill": Command(
        "neardup.ingest.commands.backfill",
        "tag the pages of an index another pipeline filled with their dup_group",
    ),
    "delete": Command(
        "neardup.ingest.commands.delete", "delete pages from the index and their groups"
    ),
    "worker": Command("neardup.ingest.commands.worker", "run a Celery verification worker"),
    "search": Command(
        "neardup.ingest.commands.search", "collapsed search: one hit per near-duplicate group"
    ),
    "stoplist": Command(
        "neardup.ingest.commands.stoplist", "compute or show the fingerprint stoplist"
    ),
    "serve": Command(
        "neardup.ingest.commands.serve",
        "HTTP service: POST /documents, an OpenSearch-compatible /_bulk, the inspector",
    ),
    "eval": Command(
        "neardup.evaluation.command",
        "precision/recall of neardup and the baselines on labelled data",
    ),
    "dashboards": Command(
        "neardup.ingest.commands.dashboards",
        "import the OpenSearch Dashboards objects (index pattern, visualisations, dashboard)",
    ),
    "templates": Command(
        "neardup.ingest.commands.templates",
        "install the pages and stoplist index templates on OpenSearch",
    ),
}


def command_parser(
    subparsers: Any, name: str, description: str | None, *, as_written: bool = True
) -> argparse.ArgumentParser:
    """The parser of the command ``name``, for its module's ``add_parser``: its one-line help is
    the one :data:`COMMANDS` lists, and ``description`` what ``neardup NAME --help`` shows — as
    written (a docstring), or wrapped to the terminal (``as_written=False``: one paragraph)."""
    formatter = argparse.RawDescriptionHelpFormatter if as_written else argparse.HelpFormatter
    return subparsers.add_parser(  # type: ignore[no-any-return]
        name, help=COMMANDS[name].help, description=description, formatter_class=formatter
    )


def usage_error(command: str, exc: ValueError) -> int:
    """Say a usage error of ``neardup COMMAND`` on stderr — a :class:`ConfigError` after the
    command's name, any other ``ValueError`` (whose message names it) as it is — and return its
    exit status, 2."""
    print(f"neardup {command}: {exc}" if isinstance(exc, ConfigError) else exc, file=sys.stderr)
    return 2


def existing_input(path: str) -> None:
    """:class:`ConfigError` unless ``path`` is a file or ``-`` (standard input)."""
    if path != "-" and not os.path.isfile(path):
        raise ConfigError(f"no such file: {path}")


def _version() -> str:
    """The installed distribution's version (``unknown`` when run from a bare source tree)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("neardup")
    except PackageNotFoundError:
        return "unknown"


class _VersionAction(argparse.Action):
    """``--version``: the version is looked up only when asked (importlib.metadata costs
    ~10 ms of every command's start-up otherwise)."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(f"neardup {_version()}")  # on stdout, as argparse's own "version" action
        parser.exit()


def _chosen(argv: Sequence[str]) -> str | None:
    """The command named in ``argv`` (the first argument that is one), if any."""
    return next((arg for arg in argv if arg in COMMANDS), None)


def build_parser(command: str | None = None, *, listed: bool = True) -> argparse.ArgumentParser:
    """The ``neardup`` parser; only ``command``'s module is imported to declare its arguments
    (the others appear by name and help, enough for ``neardup --help``; with ``listed`` false
    and a ``command``, not at all: each is a parser of its own, ~0.5 ms of start-up)."""
    parser = argparse.ArgumentParser(
        prog="neardup",
        description="Near-duplicate web page detection (LCS / trustable LCS) for OpenSearch.",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging")
    parser.add_argument(
        "--engine",
        choices=("opensearch", "elasticsearch"),
        default=None,
        help="the search engine at the URL (default $NEARDUP_ENGINE, else asked at connect)",
    )
    parser.add_argument(
        "--version", action=_VersionAction, help="show the installed version and exit"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, entry in COMMANDS.items():
        if name == command:
            importlib.import_module(entry.module).add_parser(sub)
        elif listed or command is None:
            sub.add_parser(name, help=entry.help)
    return parser


def main(argv: list[str] | None = None, settings: Settings | None = None) -> int:
    """Run ``neardup`` with ``argv``; ``settings`` default to the environment's."""
    # First: some command modules choose their implementation from the settings on import.
    try:
        settings = settings or Settings.from_env()
    except ConfigError as exc:
        print(f"neardup: {exc}", file=sys.stderr)
        return 2
    argv = sys.argv[1:] if argv is None else argv
    # The other commands are listed only where a list can show: the top-level help.
    parser = build_parser(_chosen(argv), listed=not {"-h", "--help"}.isdisjoint(argv))
    args = parser.parse_args(argv)
    if args.engine:
        settings = dataclasses.replace(settings, engine=args.engine)
    logging.basicConfig(
        level=logging.WARNING - 10 * min(args.verbose, 2),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        return int(args.func(args, settings) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:
        if (
            not _store_error(exc, "StoreUnavailable", "IndexNotFound", "AccessDenied")
            and _service_error(exc) is None
        ):
            raise
        print(f"neardup {args.command}: {service_message(exc, args, settings)}", file=sys.stderr)
        return 1


def _store_error(exc: BaseException, *names: str) -> bool:
    """Whether ``exc`` is one of the store's errors ``names`` (:mod:`neardup.ingest.store.errors`).

    The store is loaded by the commands that use it, never here: ``neardup compare`` does
    without it (about 3 ms of start-up). An exception of one of its classes implies the
    module is loaded, so when it is not, ``exc`` is none of them."""
    errors = sys.modules.get("neardup.ingest.store.errors")
    return errors is not None and isinstance(exc, tuple(getattr(errors, n) for n in names))


def _service_error(exc: BaseException) -> str | None:
    """``"opensearch"`` or ``"broker"`` when ``exc`` says that service is unreachable (the
    client libraries' own errors, without importing them), else None."""
    for c in type(exc).__mro__:
        if c.__name__ == "ConnectionError" and c.__module__.startswith(
            ("opensearchpy", "elastic_transport")
        ):
            return "opensearch"
        if c.__name__ == "OperationalError" and c.__module__.startswith("kombu"):
            return "broker"
    return None


def service_message(exc: BaseException, args: argparse.Namespace, settings: Settings) -> str:
    """One line: which service failed, where, why in a few words, and what to do."""
    if _store_error(exc, "AccessDenied"):  # credentials, privileges, TLS trust
        url = getattr(args, "opensearch_url", None) or settings.opensearch_url
        explain = sys.modules["neardup.ingest.store.errors"].explain
        return str(explain(exc, settings, url))
    if _store_error(exc, "IndexNotFound"):
        return (
            f"{exc}; nothing was ingested into it yet (neardup ingest FILE.jsonl --index "
            f"{getattr(exc, 'index', '')}), or another index was meant (--index, NEARDUP_INDEX)"
        )
    cause = exc.__cause__ or exc
    text = str(cause) + str(getattr(cause, "info", ""))
    if "refused" in text.lower():
        why = "connection refused"
    elif "timed out" in text.lower() or "timeout" in type(cause).__name__.lower():
        why = "timed out"
    elif "Name or service not known" in text or "nodename nor servname" in text:
        why = "unknown host"
    else:
        why = type(cause).__name__
    if _store_error(exc, "StoreUnavailable") or _service_error(exc) == "opensearch":
        url = (getattr(args, "opensearch_url", None) or getattr(args, "url", None)
               or settings.opensearch_url)
        if "busy" in str(exc):
            why = str(exc).split(":", 1)[0].removeprefix("OpenSearch ")
        return (
            f"OpenSearch is not reachable at {redact(url)} ({why}); start it "
            f"(scripts/opensearch.sh start) or set OPENSEARCH_URL to where it runs"
        )
    url = getattr(args, "broker_url", None) or settings.broker_url
    return (
        f"the broker is not reachable at {redact(url)} ({why}); start it "
        f"(scripts/redis.sh start) or set CELERY_BROKER_URL to where it runs"
    )


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""Command line: ``python -m app {migrate,serve,world load FILE,config-doc,policy ...}``.

* ``migrate``: apply the Alembic migrations to ``DATABASE_URL`` (or the configured URL).
* ``serve``: run the API with uvicorn on ``host``/``port`` from configuration, and the
  metrics listener on ``metrics.host``/``metrics.port`` when that port is set.
* ``world load FILE``: load a world fixture in one transaction and print the JSON map
  of keys and handles to ids; an invalid file writes nothing and exits 2.
* ``config-doc [--check]``: print (or check) ``docs/configuration.md``.
* ``policy {diff,generate,capture,doc} ...``: the policy impact diff and its corpus
  and decision tables (package ``policydiff``, imported only for this command; see
  ``python -m app policy --help``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app.config import ConfigError, load_settings, render_reference

REFERENCE = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m app", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("migrate", help="apply database migrations")
    commands.add_parser("serve", help="serve the HTTP API")
    world = commands.add_parser("world", help="world fixtures")
    world_commands = world.add_subparsers(dest="world_command", required=True)
    load = world_commands.add_parser("load", help="load a world fixture file")
    load.add_argument("file")
    doc = commands.add_parser("config-doc", help="render the configuration reference")
    doc.add_argument("--check", action="store_true", help="fail when the file is stale")
    # Listed for --help only: main() hands `policy ...` to policydiff.cli before parsing.
    commands.add_parser("policy", help="policy impact diff, corpus and decision tables")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the process exit code."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["policy"]:
        # Everything after `policy` is policydiff's (its own --help included), imported
        # here only: the service's own commands never load the reviewer's tool.
        try:
            from policydiff.cli import main as policy_main
        except ModuleNotFoundError as missing:
            # The reviewer's tool needs the dev extras (opa-python-client); a plain
            # install of the service lacks them, which deserves a sentence, not a trace.
            print(
                f"python -m app policy needs the dev extras ({missing.name} is not "
                "installed): pip install '.[dev]'",
                file=sys.stderr,
            )
            return 2
        return policy_main(argv[1:])
    args = _parser().parse_args(argv)
    if args.command == "config-doc":
        rendered = render_reference()
        if args.check:
            current = REFERENCE.read_text(encoding="utf-8") if REFERENCE.exists() else ""
            if current != rendered:
                print(
                    f"{REFERENCE} is stale: run `python -m app config-doc > docs/configuration.md`",
                    file=sys.stderr,
                )
                return 1
            return 0
        sys.stdout.write(rendered)
        return 0
    try:
        settings = load_settings()
    except ConfigError as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2
    if args.command == "migrate":
        from repositories.migrate import upgrade

        upgrade(settings.text("database.url"))
        print("migrations applied", file=sys.stderr)
        return 0
    if args.command == "world":
        from world import WorldError, load_world_file

        try:
            mapping = load_world_file(settings.text("database.url"), args.file)
        except WorldError as exc:
            print(f"invalid world file {args.file}: {exc}", file=sys.stderr)
            return 2
        print(json.dumps(mapping, indent=2, sort_keys=True))
        return 0
    from app.logs import configure_logging

    # Before the server's imports: a library's warning at import is a JSON line too.
    configure_logging(settings.text("log.level"))
    from app.observability.exposition import ListenerError
    from app.observability.tracing import TracingConfigError
    from app.server import serve

    try:
        serve(settings)
    except (TracingConfigError, ListenerError) as exc:
        print(f"configuration error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

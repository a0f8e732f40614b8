"""`mjlens recognize`."""

from __future__ import annotations

from api.cli import UsageError


def register(sub) -> None:
    parser = sub.add_parser("recognize", help="(not available in this build)")
    parser.set_defaults(run=run)


def run(args) -> int:
    raise UsageError("this command is not available in this build")

"""The ``maumau`` command line (see ``docs/record.md`` for the record commands).

Each subcommand is one small function taking the parsed arguments and returning the
exit status; :func:`build_parser` wires them up.  Exit statuses:

* ``0`` -- done;
* ``1`` -- the engine refused the input (an illegal action, a bad option, card or
  layout inside a record: the error object is printed);
* ``2`` -- the input was unusable: not a record at all, an unreadable file, a bad
  command line (argparse's own convention) or a bad ``--preset`` / ``--set`` value.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from maumau import __version__
from maumau.cli.admin import add_commands as add_admin_commands
from maumau.cli.backup import add_commands as add_backup_commands
from maumau.cli.bots import add_commands as add_bot_commands
from maumau.cli.env import apply_to_commands
from maumau.cli.evaluation import add_commands as add_eval_commands
from maumau.cli.load import add_commands as add_load_commands
from maumau.cli.options import rules_from_args
from maumau.cli.play import add_commands as add_play_commands
from maumau.cli.serve import add_commands as add_serve_commands
from maumau.engine.errors import EngineError
from maumau.engine.jsontext import dumps_json
from maumau.engine.options import PRESETS
from maumau.engine.record import Record, RecordFormatError, parse_record
from maumau.engine.replay import replay_report
from maumau.engine.verify import verify_report

Command = Callable[[argparse.Namespace], int]


def _print_json(value: Any) -> None:
    sys.stdout.write(dumps_json(value))


def _complain(message: str) -> None:
    print(f"maumau: {message}", file=sys.stderr)


def _read_input(name: str) -> bytes:
    """The bytes of file ``name``, or of standard input for ``-``."""
    if name == "-":
        stream: Any = sys.stdin
        data = stream.buffer.read() if hasattr(stream, "buffer") else stream.read().encode()
        return bytes(data)
    with open(name, "rb") as handle:
        return handle.read()


# --- subcommands ----------------------------------------------------------------------


def _load_record(name: str) -> Record | None:
    """Read and parse the record in file ``name`` (``-``: standard input); on failure
    print the error object and the message, and return ``None`` (exit status 2)."""
    shown = "standard input" if name == "-" else name
    try:
        data = _read_input(name)
    except OSError as exc:
        message = f"cannot read {shown}: {exc.strerror or exc}"
        _print_json({"ok": False, "error": {"code": "cannot_read", "message": message}})
        _complain(message)
        return None
    try:
        return parse_record(data)
    except RecordFormatError as exc:
        message = f"{shown} is not a game record: {exc.message}"
        _print_json({"ok": False, "error": {"code": exc.code, "message": message}})
        _complain(message)
        return None


def cmd_record_replay(args: argparse.Namespace) -> int:
    """Replay a record and print the report (or the error object)."""
    record = _load_record(args.file)
    if record is None:
        return 2
    report = replay_report(record)
    _print_json(report)
    if not report["ok"]:
        shown = "standard input" if args.file == "-" else args.file
        error = report["error"]
        where = "" if error["round"] is None else f"round {error['round']}"
        if error["action"] is not None:
            where += f", action {error['action']}"
        _complain(f"{shown}: {where + ': ' if where else ''}{error['code']}: {error['message']}")
        return 1
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    """Check every round's shuffle commitment and that the record replays."""
    record = _load_record(args.file)
    if record is None:
        return 2
    report = verify_report(record)
    _print_json(report)
    if report["ok"]:
        return 0
    for entry in report["rounds"]:
        if entry["status"] != "verified":
            _complain(f"round {entry['round']}: {entry['status']}: {entry['message']}")
    if not report["replay"]["ok"]:
        error = report["replay"]["error"]
        _complain(f"the record does not replay: {error['code']}: {error['message']}")
    return 1


def cmd_rules(args: argparse.Namespace) -> int:
    """Print the effective options of a preset plus ``--set`` overrides."""
    try:
        rules = rules_from_args(args.preset, args.set)
    except ValueError as exc:  # a malformed --set, or the engine's BadOption
        _complain(exc.message if isinstance(exc, EngineError) else str(exc))
        return 2
    print(json.dumps(rules.to_dict(), indent=2))
    return 0


# --- wiring -----------------------------------------------------------------------


def _usage(parser: argparse.ArgumentParser) -> Command:
    """A handler for a command given without its subcommand: help on stderr, status 2."""

    def handler(args: argparse.Namespace) -> int:
        parser.print_help(sys.stderr)
        return 2

    return handler


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="maumau", description="Mau Mau: rules engine, game records and bots."
    )
    parser.add_argument("--version", action="version", version=f"maumau {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    record = commands.add_parser("record", help="work with game records")
    record_commands = record.add_subparsers(dest="record_command", metavar="SUBCOMMAND")
    record.set_defaults(handler=_usage(record))
    replay = record_commands.add_parser(
        "replay",
        help="replay a record and print the report as JSON",
        description="Replay a game record and print its report as JSON. Exit status: "
        "0 replayed, 1 the engine refused an action, option, card or layout "
        "(error object printed), 2 not a record or unreadable.",
    )
    replay.add_argument("file", metavar="FILE", help="the record file, or - for standard input")
    replay.set_defaults(handler=cmd_record_replay)

    verify = commands.add_parser(
        "verify",
        help="check a record's shuffle commitments",
        description="Check that every round's revealed seed and salt hash to its "
        'commitment (SHA-256 of "<seed>:<salt>") and that the record replays from those '
        "seeds. Prints a JSON report. Exit status: 0 every round verified, 1 a round is "
        "not committed or does not verify, or the record does not replay, 2 not a record.",
    )
    verify.add_argument("file", metavar="FILE", help="the record file, or - for standard input")
    verify.set_defaults(handler=cmd_verify)

    rules = commands.add_parser(
        "rules",
        help="print the effective options as JSON",
        description="Print every option key with its effective value. "
        "Exit status 2 (message on stderr) for an unknown preset, key or value.",
    )
    rules.add_argument("--preset", metavar="NAME", help=f"one of: {', '.join(PRESETS)}")
    rules.add_argument(
        "--set",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="override one option; VALUE is read as JSON (true, 32), else as text",
    )
    rules.set_defaults(handler=cmd_rules)
    add_bot_commands(commands)
    add_play_commands(commands)
    add_serve_commands(commands)
    add_load_commands(commands)
    add_backup_commands(commands)
    add_admin_commands(commands)
    add_eval_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    apply_to_commands(parser)  # MAUMAU_PUBLIC_URL for serve's --public-url, and so on
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    if getattr(args, "environment_error", None):
        _complain(args.environment_error)
        return 2
    handler: Command = getattr(args, "handler", _usage(parser))
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())

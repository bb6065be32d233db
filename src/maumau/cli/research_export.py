"""``maumau admin research-export``: finished games as research data, without names.

Only the games of tables whose host turned ``research_export`` on (a table setting,
off by default: docs/protocol.md "Table settings") are read; every other game is left
out, whatever the operator asks.  Each is replayed from its record into the samples
of :mod:`maumau.eval.games` (``maumau_v0``'s observation, mask, action, seat and
outcome), which hold no name, game id, time or seed, and written to one ``.npz`` file
(mode 0600).  Closed games (which did not finish) have no outcome and are left out.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine

#: the table setting that allows it
SETTING = "research_export"


def add_research_export(sub: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        "research-export",
        help="write finished games, without names, as research data",
        description="Write the finished games of the tables whose host allowed it (the "
        f"table setting {SETTING}) as (observation, mask, action, seat, outcome) samples "
        "in maumau_v0's encoding, without names, to one .npz file (docs/research.md, "
        '"Human games as data"; maumau.eval.games.load_games reads it).',
    )
    parser.add_argument(
        "--out", required=True, type=Path, metavar="FILE", help="the .npz file to write (0600)"
    )
    parser.add_argument("--finished-before", metavar="DATE", help="only games ended before")
    parser.set_defaults(handler=cmd_research_export)
    return parser


def allowed(settings: dict[str, Any]) -> bool:
    """Whether a table's settings allow its games to be exported (only ``true`` does)."""
    return settings.get(SETTING) is True


def cmd_research_export(args: argparse.Namespace) -> int:
    from maumau.cli.admin import BATCH, _run, _write_private, parse_date, record_document
    from maumau.cli.backup import complain

    try:
        from maumau.eval import games as data
    except ImportError as exc:
        return complain("admin research-export", f"needs numpy (the rl extra): {exc}")
    try:
        before = None if args.finished_before is None else parse_date(args.finished_before)
        out = args.out.expanduser().resolve()
        if not out.parent.is_dir():
            raise ValueError(f"there is no directory {out.parent}")
    except ValueError as exc:
        return complain("admin research-export", str(exc))

    async def body(engine: AsyncEngine) -> int:
        from maumau.engine import EngineError
        from maumau.store import admin as sql
        from maumau.store import exports, queries

        parts, refused, failed = [], 0, 0
        after = ""
        while True:
            async with engine.begin() as conn:
                batch = await sql.ended_games(conn, before, BATCH, after)
            if not batch:
                break
            after = batch[-1].id
            for game in batch:
                if game.status != "finished":
                    continue
                if not allowed(game.settings):
                    refused += 1
                    continue
                async with engine.begin() as conn:
                    stored = await exports.export(conn, game.id, "record")
                    steps = None if stored is not None else await queries.steps_json(conn, game.id)
                try:
                    document = record_document(game, stored, steps)
                    if document is None:
                        continue
                    humans = [kind == "human" for kind in game.kinds]
                    parts.append(data.samples_of(document, humans))
                except (EngineError, ValueError, KeyError, TypeError) as exc:
                    print(f"maumau admin: game {game.id}: left out: {exc}", file=sys.stderr)
                    failed += 1
        joined = data.concat(parts)
        _write_private(out, data.games_bytes(joined))
        print(
            f"maumau admin research-export: {len(parts)} game(s), {len(joined)} sample(s) "
            f"written to {out}; {refused} finished game(s) of tables that did not allow it "
            "left out"
        )
        if failed:
            return complain("admin research-export", f"{failed} game(s) could not be read")
        return 0

    return _run("research-export", args, body)

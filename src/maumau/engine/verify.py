"""The verifiable shuffle (``docs/record.md``): check a record's shuffle commitments.

A round dealt for live play carries ``commitment`` = SHA-256 of ``"<seed>:<salt>"`` in
lowercase hex; players see only the commitment while the round runs, and the seed and
salt are revealed when it ends.  :func:`verify_report` checks, for every round, that
the revealed seed and salt hash to the commitment and that the seed deals exactly the
cards of the round (its reshuffles follow from the same seed when the record replays).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from maumau.engine.errors import EngineError
from maumau.engine.game import Game
from maumau.engine.record import Record, RecordRound, UnreadableLayout, parse_record
from maumau.engine.replay import replay_report
from maumau.engine.round import Round
from maumau.engine.table import table_for


def commitment_of(seed: int, salt: str) -> str:
    """The commitment to a round's ``seed``: SHA-256 of ``"<seed>:<salt>"``, hex."""
    return hashlib.sha256(f"{seed}:{salt}".encode()).hexdigest()


def verify_report(record: Record | str | bytes | Mapping[str, Any]) -> dict[str, Any]:
    """``{"ok": ..., "rounds": [...], "replay": ...}``: one entry per round with its
    ``status`` (``verified``, ``mismatch``, ``no_salt``, ``not_committed`` or
    ``layout_differs``) and the record's replay report.  ``ok`` only when every round
    is verified and the record replays."""
    if not isinstance(record, Record):
        record = parse_record(record)
    rounds = [_check_round(record, i, dealt) for i, dealt in enumerate(record.rounds)]
    replay = replay_report(record)
    ok = bool(rounds) and all(r["status"] == "verified" for r in rounds) and replay["ok"]
    return {"ok": ok, "rounds": rounds, "replay": replay}


def _check_round(record: Record, index: int, dealt: RecordRound) -> dict[str, Any]:
    entry: dict[str, Any] = {"round": index}
    if dealt.commitment is None:
        return entry | {"status": "not_committed", "message": "the round carries no commitment"}
    if dealt.salt is None:
        return entry | {"status": "no_salt", "message": "the salt has not been revealed"}
    expected = commitment_of(dealt.seed, dealt.salt)
    if expected != dealt.commitment:
        return entry | {
            "status": "mismatch",
            "message": f'SHA-256 of "<seed>:<salt>" is {expected}, not the committed '
            f"{dealt.commitment}",
        }
    layout = dealt.layout
    if layout is not None and (
        isinstance(layout, UnreadableLayout) or not _layout_is_dealt(record, index, dealt)
    ):
        return entry | {
            "status": "layout_differs",
            "message": "the laid-out cards are not what the committed seed deals",
        }
    return entry | {"status": "verified", "message": "the seed and salt match the commitment"}


def _layout_is_dealt(record: Record, index: int, dealt: RecordRound) -> bool:
    """Does the seed deal exactly the round's laid-out hands, start card and stock?"""
    layout = dealt.layout
    assert layout is not None and not isinstance(layout, UnreadableLayout)
    try:
        rules = Game.new(record.options, players=list(record.players)).rules
    except EngineError:
        return False
    n = len(record.players)
    state = Round.deal(table_for(rules), n, dealt.seed, index % n)
    hands = [sum(1 << c for c in hand) for hand in layout.hands]
    return (
        hands == state.hands
        and [layout.start] == state.discard
        and list(layout.stock) == state.stock[::-1]
    )

"""A move the server made for a seat says so (issue 20): ``"by": "timeout"`` when the
turn timer ran out, ``"by": "stand_in"`` when a stand-in played for an absent player.
The mark is kept in the stored steps, so it survives a restart, and never reaches the
game record."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_server_play import GAME_TIMEOUT, TIMEOUT, acted, connected, is_state, until

from maumau.engine.replay import replay_report
from support.serverkit import add_bot, create_table, make_client, start

Message = dict[str, Any]


def seat_entries(events: list[Message], seat: int) -> list[Message]:
    """The entries of moves ``seat`` made (not a catcher's penalty for it)."""
    verbs = ("play", "draw", "pass", "catch", "penalty")
    return [
        e
        for e in events
        if e.get("seat") == seat and any(v in e for v in verbs) and e.get("reason") != "caught"
    ]


def check_record_has_no_marks(record: Message) -> None:
    for round_ in record["rounds"]:
        for action in round_.get("actions", []):
            assert "by" not in action, action
    assert replay_report(record)["ok"], "the record replays as before"


def test_a_timed_out_move_is_marked_and_the_mark_survives_a_restart(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, ana = create_table(client, "Ana", turn_seconds=1, stand_in_level="easy")
        add_bot(client, game_id, ana, "easy")
        with connected(client, game_id, ana) as wa:
            start(client, game_id, ana)
            moved = until(wa, lambda m: acted(m, 0), timeout=TIMEOUT)[-1]
            mine = [e for e in moved["events"] if e.get("seat") == 0]
            assert mine and all(e["by"] == "timeout" for e in mine), moved["events"]
            # the bot's own moves are its own: no mark
            bot = until(wa, lambda m: acted(m, 1), timeout=TIMEOUT)[-1]
            assert all("by" not in e for e in bot["events"] if e.get("seat") == 1)

    # a new server on the same database: the log it sends still says who moved
    with make_client(tmp_path) as client, connected(client, game_id, ana) as wa:
        first = until(wa, is_state)[-1]
        timed = [e for e in first["events"] if e.get("by") == "timeout"]
        assert timed and timed[0] == mine[0], first["events"]


def test_a_stand_ins_moves_are_marked_but_not_in_record_or_replay(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, ana = create_table(client, "Ana", preset=None, grace_seconds=0.1, bot_delay_ms=5)
        add_bot(client, game_id, ana, "easy")
        with connected(client, game_id, None) as spectator:
            start(client, game_id, ana)  # Ana never connects: a stand-in plays for her
            seen = until(spectator, lambda m: m["type"] == "game_end", timeout=GAME_TIMEOUT)
        events = [e for m in seen if is_state(m) for e in m["events"]]
        ana_moves = seat_entries(events, 0)
        assert ana_moves and all(e["by"] == "stand_in" for e in ana_moves), ana_moves
        assert all(isinstance(e.get("by", 0), int) for e in seat_entries(events, 1))
        check_record_has_no_marks(client.get(f"/api/games/{game_id}/record").json())
        replay = client.get(f"/api/games/{game_id}/replay").json()
        actions = [f["action"] for r in replay["rounds"] for f in r["frames"] if f["action"]]
        assert actions and all("by" not in a for a in actions)

"""What a finished table offers: its replay with every hand, the invite's QR code, and
the rounds a late or returning client missed (in ``welcome``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from maumau.engine import replay
from maumau.server.live.replays import qr_svg
from support.serverkit import add_bot, create_table, hello, make_client, start, wait_for_status


def finished_table(client: TestClient, preset: str = "penalty-100") -> str:
    """A table whose absent human is played by a stand-in at once, to the end."""
    game_id, token = create_table(client, preset=preset, grace_seconds=0)
    add_bot(client, game_id, token, "easy")
    start(client, game_id, token)
    wait_for_status(client, game_id, "finished")
    return game_id


def test_replay_shows_every_position_with_every_hand(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id = finished_table(client)
        record = client.get(f"/api/games/{game_id}/record").json()
        frames = client.get(f"/api/games/{game_id}/replay").json()
    game = replay(record)
    assert frames["totals"] == list(game.totals) and frames["winners"] == list(game.winners or ())
    assert len(frames["rounds"]) == len(record["rounds"]) >= 1
    for shown, stored, result in zip(frames["rounds"], record["rounds"], game.results, strict=True):
        assert shown["seed"] == stored["seed"] and shown["commitment"] == stored["commitment"]
        assert len(shown["frames"]) == len(stored["actions"]) + 1
        assert shown["frames"][0]["action"] is None
        assert [f["action"] for f in shown["frames"][1:]] == stored["actions"]
        for frame in shown["frames"]:
            view = frame["view"]
            assert [len(h) for h in view["hands"]] == view["counts"]
        assert shown["frames"][-1]["view"]["hands"] == [list(h) for h in result.hands]
        # each frame brings the public log entries its action added: the action's own
        # entry, with what it caused (a skipped seat, a kept card, a reason)
        assert shown["frames"][0]["events"] == []
        for frame in shown["frames"][1:]:
            action, events = frame["action"], frame["events"]
            kind = next(k for k in ("play", "draw", "pass", "catch") if k in action)
            entry = next(e for e in events if "seat" in e)  # a reshuffle may come first
            assert entry["seat"] == action["seat"] and kind in entry, (action, events)
            ended = any("out" in e for e in events)  # a last card's effect lapses
            if (
                kind == "play"
                and action["play"][0] == "8"
                and frames["rules"]["eight_skips"]
                and not ended
            ):
                assert "skipped" in entry, (action, events)


def test_no_replay_before_the_end(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, token = create_table(client, grace_seconds=None)
        add_bot(client, game_id, token)
        start(client, game_id, token)
        reply = client.get(f"/api/games/{game_id}/replay")
    assert reply.status_code == 409 and reply.json()["error"]["code"] == "game_not_finished"


def test_qr_code_of_the_invite_link(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, _ = create_table(client)
        reply = client.get(f"/api/games/{game_id}/qr.svg")
        missing = client.get("/api/games/nope/qr.svg")
    assert reply.status_code == 200 and reply.headers["content-type"] == "image/svg+xml"
    assert reply.content == qr_svg(f"http://testserver/g/{game_id}")
    assert reply.content != qr_svg(f"http://testserver/g/{game_id}x")
    assert missing.status_code == 404


def test_welcome_tells_a_late_client_every_round_it_missed(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id = finished_table(client)
        record = client.get(f"/api/games/{game_id}/record").json()
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            welcome: dict[str, Any] = hello(ws, None)
    game = replay(record)
    assert [r["totals"] for r in welcome["results"]] == [list(r.totals) for r in game.results]
    assert [r["seed"] for r in welcome["results"]] == [r["seed"] for r in record["rounds"]]
    assert welcome["end"]["winners"] == list(game.winners or ())
    assert welcome["end"]["decided_by"] == game.decided_by

"""Setting up the live campaign's games: four humans mid-round, two humans and two
computer players mid-round, a finished game, a table in the lobby."""

from __future__ import annotations

import asyncio
from typing import Any

from lab.hostile.games import Context, GameCtx
from lab.hostile.peer import Peer, greet
from lab.hostile.server import Server
from maumau.engine import Rules


async def setup_games(server: Server) -> Context:
    import httpx

    async with httpx.AsyncClient(base_url=server.base, timeout=30) as http:

        async def create(preset: str, **settings: Any) -> tuple[str, str]:
            body = {
                "name": "Host",
                "preset": preset,
                "settings": {"grace_seconds": None, "next_round_seconds": 600, **settings},
            }
            reply = await http.post("/api/games", json=body)
            assert reply.status_code == 201, reply.text
            return reply.json()["game_id"], reply.json()["token"]

        async def join(game_id: str, name: str) -> str:
            reply = await http.post(f"/api/games/{game_id}/seats", json={"name": name})
            assert reply.status_code == 200, reply.text
            token: str = reply.json()["token"]
            return token

        async def bot(game_id: str, token: str, level: str = "random") -> None:
            reply = await http.post(
                f"/api/games/{game_id}/bots",
                json={"level": level},
                headers={"Authorization": f"Bearer {token}"},
            )
            assert reply.status_code == 200, reply.text

        async def start(game_id: str, token: str) -> None:
            reply = await http.post(
                f"/api/games/{game_id}/start", headers={"Authorization": f"Bearer {token}"}
            )
            assert reply.status_code == 204, reply.text

        strangers_id, stranger = await create("standard")
        strangers = [stranger, await join(strangers_id, "Stranger")]

        games: dict[str, GameCtx] = {}
        running = (("four-humans", "penalty-100", "hhhh"), ("humans-and-bots", "gamerules", "hbhb"))
        for key, preset, layout in running:
            for attempt in range(10):
                game = await running_game(
                    server, create, join, bot, start, key, preset, layout, attempt
                )
                if game is not None:
                    games[game.key] = game
                    break
        assert len(games) == 2, "could not set up the running games"
        games["finished"] = await finished_game(server, create, bot, start)
        lobby_id, host = await create("penalty-100")
        guest = await join(lobby_id, "Guest")
        games["lobby"] = GameCtx(
            "lobby",
            lobby_id,
            "lobby",
            Rules.from_dict({"preset": "penalty-100"}),
            {0: host, 1: guest},
        )
    return Context(games, strangers)


async def running_game(
    server: Server,
    create: Any,
    join: Any,
    bot: Any,
    start: Any,
    key: str,
    preset: str,
    layout: str,
    attempt: int,
) -> GameCtx | None:
    """A game in progress where a held human seat is to move, after one accepted move
    (so a resent action_id has something to be a duplicate of).  ``layout`` gives the
    seats: ``h`` a human the campaign holds, ``b`` a computer player.  ``None`` if the
    deal did not allow that (the caller tries another table)."""
    game_id, host = await create(preset, bot_delay_ms=0)
    tokens = {0: host}
    for seat, kind in enumerate(layout[1:], 1):
        if kind == "b":
            await bot(game_id, host)
        else:
            tokens[seat] = await join(game_id, f"Human {seat}")
    game = GameCtx(key, game_id, "playing", Rules.from_dict({"preset": preset}), tokens)
    peers = {}
    for s in tokens:
        peers[s] = await Peer.open(f"{server.ws_base}/ws/{game_id}")
        await greet(peers[s], game, f"seat{s}")
    await start(game_id, host)
    try:
        latest = await settle(peers)
        view = latest[0]["view"]
        mover = view["to_move"]
        if mover not in tokens or view["step"] not in ("play", "drawn"):
            return None
        state = latest[mover]
        action_id = f"setup-{key}-{attempt}"
        await peers[mover].send_json(
            {
                "type": "action",
                "version": state["version"],
                "action_id": action_id,
                "action": state["legal"][0],
            }
        )
        latest = await settle(peers)
        view = latest[0]["view"]
        now = view["to_move"]
        if now not in tokens or view["step"] not in ("play", "drawn") or view["round"] != 0:
            return None
        if not latest[now]["legal"]:
            return None
        game.accepted_ids[mover] = [action_id]
        game.version = latest[now]["version"]
        for s, state in latest.items():
            game.legal[s] = state["legal"]
            game.hands[s] = state["view"]["hand"]
        return game
    finally:
        for peer in peers.values():
            await peer.close()


async def settle(peers: dict[int, Peer], quiet: float = 0.7) -> dict[int, dict[str, Any]]:
    """Read every peer's messages until none comes for ``quiet`` seconds; the last
    state of each."""
    latest: dict[int, dict[str, Any]] = {}

    async def drain(seat: int, peer: Peer) -> None:
        while True:
            try:
                message = await peer.recv(quiet)
            except TimeoutError:
                return
            if message["type"] == "state":
                latest[seat] = message
            elif message["type"] == "error":
                raise RuntimeError(f"setup move refused: {message}")

    await asyncio.gather(*(drain(s, p) for s, p in peers.items()))
    return latest


async def finished_game(server: Server, create: Any, bot: Any, start: Any) -> GameCtx:
    """A single-deal game against a computer player, played to its end."""
    game_id, host = await create("standard", bot_delay_ms=0, next_round_seconds=0)
    await bot(game_id, host)
    game = GameCtx(
        "finished", game_id, "finished", Rules.from_dict({"preset": "standard"}), {0: host}
    )
    peer = await Peer.open(f"{server.ws_base}/ws/{game_id}")
    ids: list[str] = []
    try:
        await greet(peer, game, "seat0")
        await start(game_id, host)
        while True:
            message = await peer.recv(30)
            if message["type"] == "game_end":
                break
            if message["type"] == "state" and message["legal"] and not message["view"]["finished"]:
                ids.append(f"fin-{len(ids)}")
                await peer.send_json(
                    {
                        "type": "action",
                        "version": message["version"],
                        "action_id": ids[-1],
                        "action": message["legal"][0],
                    }
                )
        final = None
        while final is None:
            message = await peer.recv(10)
            if message["type"] == "lobby" and message["game"]["status"] == "finished":
                final = message
    finally:
        await peer.close()
    fresh = await Peer.open(f"{server.ws_base}/ws/{game_id}")
    try:
        state = await greet(fresh, game, "seat0")
    finally:
        await fresh.close()
    assert state is not None
    game.version = state["version"]
    game.legal[0] = state["legal"]
    game.hands[0] = state["view"]["hand"]
    game.accepted_ids[0] = ids[-200:]
    return game

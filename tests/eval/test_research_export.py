"""Human games as data (``maumau.eval.games``, ``maumau admin research-export``): the
samples are what ``maumau_v0`` shows for the same states, only the tables that allowed
it are exported, and no name reaches the file."""

from __future__ import annotations

import asyncio
import random
import stat
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from maumau.cli.main import main
from maumau.engine import Game, Record
from maumau.engine.replay import record_of
from maumau.env import maumau_v0
from maumau.eval.games import GAMES_SCHEMA, concat, load_games, samples_of, save_games
from maumau.server.wire.protocol import TableSettings


def played(rules: str, players: int, seed: int) -> tuple[Game, list[tuple[Any, ...]]]:
    """A maumau_v0 game played by random legal actions, and what the environment showed
    at each decision: (observation, mask, action, seat)."""
    env = maumau_v0.raw_env(rules=rules, players=players)
    env.reset(seed=seed)
    rng = random.Random(seed)
    shown = []
    for _ in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        seat = env.session.to_move
        shown.append((observation["observation"], observation["action_mask"], action, seat))
        env.step(action)
    assert env.session.finished
    return env.session.game, shown


@pytest.mark.parametrize(("rules", "players"), [("catch", 3), ("standard", 2), ("standard", 4)])
def test_the_samples_are_what_maumau_v0_shows(rules: str, players: int) -> None:
    game, shown = played(rules, players, 5)
    data = samples_of(record_of(game).to_json(), [True] * players)
    assert len(data) == len(shown) > 10
    for i, (observation, mask, action, seat) in enumerate(shown):
        assert np.array_equal(data.observation[i], observation)
        assert np.array_equal(data.action_mask[i], mask)
        assert (data.action[i], data.seat[i]) == (action, seat)
    winners = game.winners or ()
    assert all((data.outcome[data.seat == s] > 0).all() == (s in winners) for s in range(players))
    assert data.games[0]["players"] == players


def test_the_file_reads_back(tmp_path: Path) -> None:
    parts = [samples_of(record_of(played("standard", 2, s)[0])) for s in (1, 2)]
    data = concat(parts)
    path = tmp_path / "games.npz"
    save_games(path, data)
    back = load_games(path)
    assert len(back) == len(parts[0]) + len(parts[1])
    assert np.array_equal(back.observation, data.observation)
    assert list(np.unique(back.game)) == [0, 1] and len(back.games) == 2
    np.savez(path, meta=np.array('{"schema": "other"}'), **{"action": np.zeros(1)})
    with pytest.raises(ValueError, match="not a human games file"):
        load_games(path)


def test_a_game_that_did_not_finish_has_no_samples() -> None:
    game, _ = played("standard", 2, 3)
    record = record_of(game)
    cut = Record(record.players, record.rounds[:1], record.options)
    cut = Record(
        cut.players,
        (cut.rounds[0].__class__(cut.rounds[0].seed, actions=cut.rounds[0].actions[:3]),),
        cut.options,
    )
    with pytest.raises(ValueError, match="did not finish"):
        samples_of(cut)


def test_the_table_setting_is_off_by_default() -> None:
    assert TableSettings().research_export is False
    assert TableSettings.model_validate({}).research_export is False  # tables made before it


def _store(url: str, games: list[tuple[str, str, dict[str, Any], Game, tuple[str, ...]]]) -> None:
    from maumau.store import GameRow, SeatRow, StepRow, Store

    async def fill() -> None:
        store = await Store.open(url)
        try:
            for game_id, status, settings, game, names in games:
                seats = tuple(SeatRow(i, name, "human", None, None) for i, name in enumerate(names))
                record = record_of(game)
                row = GameRow(game_id, status, record.options, settings, 0, seats, 1.0, 1.0)
                await store.create_game(row)
                steps = []
                for dealt in record.rounds:
                    steps.append(StepRow(len(steps), "deal", {"seed": dealt.seed}))
                    for seat, action in dealt.actions:
                        steps.append(StepRow(len(steps), "action", action.to_json(seat)))
                await store.append(game_id, steps, 1.0)
        finally:
            await store.close()

    asyncio.run(fill())


def test_only_the_tables_that_allowed_it_are_exported_without_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "db").mkdir()
    url = f"sqlite:///{tmp_path / 'db' / 'maumau.sqlite3'}"
    allowed, _ = played("standard", 2, 7)
    refused, _ = played("standard", 3, 8)  # 3 seats: told apart from the allowed one
    unset, _ = played("catch", 4, 9)
    _store(
        url,
        [
            ("allowed", "finished", {"research_export": True}, allowed, ("Anaxagoras", "Bettina")),
            ("refused", "finished", {"research_export": False}, refused, ("Cy", "Dora", "Ed")),
            ("unset", "finished", {"bot_delay_ms": 0}, unset, ("Fe", "Gus", "Hal", "Ida")),
            ("closed", "closed", {"research_export": True}, refused, ("Jo", "Kim", "Lu")),
        ],
    )
    out = tmp_path / "games.npz"
    capsys.readouterr()
    status = main(["admin", "research-export", "--out", str(out), "--database-url", url])
    said = capsys.readouterr().out
    assert status == 0, said
    assert "1 game(s)" in said and "2 finished game(s) of tables that did not allow it" in said
    data = load_games(out)
    assert [g["players"] for g in data.games] == [2]
    expected = samples_of(record_of(allowed), [True, True])
    assert np.array_equal(data.observation, expected.observation)
    assert np.array_equal(data.action, expected.action) and data.human.all()
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    # no name, no game id anywhere in the archive (its members decompressed; numpy keeps
    # text as UTF-32)
    with zipfile.ZipFile(out) as archive:
        content = b"".join(archive.read(name) for name in archive.namelist())
    assert GAMES_SCHEMA.encode("utf-32-le") in content  # (the search can find text)
    for secret in ("Anaxagoras", "Bettina", "allowed", "Dora", "player_"):
        assert secret.encode() not in content and secret.encode("utf-32-le") not in content

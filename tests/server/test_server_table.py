"""A table keeps its committed steps packed, and rebuilds its game from them exactly."""

from __future__ import annotations

import random

import pytest

from maumau.engine import Rules, action_from_json
from maumau.engine.actions import JACK_PLAYS, PLAYS, Play, play_action
from maumau.engine.errors import IllegalAction
from maumau.engine.replay import options_of
from maumau.server.live.table import Table, new_deal
from maumau.server.wire.protocol import TableSettings
from maumau.store import GameRow, SeatRow, StepRow


def table_row() -> GameRow:
    return GameRow(
        id="t1",
        status="playing",
        options=options_of(Rules.from_preset("penalty-100")),
        settings=TableSettings().model_dump(),
        host=0,
        seats=(SeatRow(0, "Ana", "human", None, "a" * 64), SeatRow(1, "Bo", "bot", "normal", None)),
        created_at=1.0,
        last_active_at=1.0,
    )


def played_table(moves: int, seed: int = 7) -> tuple[Table, list[StepRow]]:
    """A table with ``moves`` committed moves (each with a client id) and the deals
    they needed, and the steps it committed."""
    table = Table.load(table_row(), [])
    committed: list[StepRow] = []

    def commit(step: StepRow) -> None:
        table.committed(step)
        committed.append(step)

    rng = random.Random(seed)
    commit(table.try_deal(dict(new_deal(), seed=seed)))
    for n in range(moves):
        game = table.require_game()
        if game.round_over:
            commit(table.try_deal(dict(new_deal(), seed=seed + n)))
        seat = game.to_move
        commit(table.try_action(seat, rng.choice(game.legal_actions(seat)), f"move-{n}"))
    return table, committed


def test_the_steps_read_back_as_they_were_committed() -> None:
    table, committed = played_table(120)
    steps = table.steps()
    assert table.step_count == len(steps) == len(committed) > 120
    assert [s.seq for s in steps] == list(range(len(steps)))
    assert steps == committed
    assert steps[0].kind == "deal" and steps[0].client_id is None and steps[0].data["seed"] == 7
    actions = [s for s in steps if s.kind == "action"]
    assert [s.client_id for s in actions] == [f"move-{n}" for n in range(120)]


def test_a_table_loaded_from_its_steps_is_the_same_game() -> None:
    table, _ = played_table(120)
    again = Table.load(table_row(), table.steps())
    assert again.version == table.version
    assert again.record() == table.record()
    assert again.recent == table.recent  # duplicate moves are still recognised


def test_rebuilding_drops_a_step_that_was_not_committed() -> None:
    table, committed = played_table(12)
    record, version = table.record(), table.version
    game = table.require_game()
    seat = game.to_move
    table.try_action(seat, game.legal_actions(seat)[0], "never-stored")
    assert table.version == version + 1 and table.step_count == len(committed)  # not yet
    table.rebuild(table.steps())
    assert table.version == version and table.record() == record
    assert "never-stored" not in table.recent.get(seat, {})


def test_plays_read_from_json_are_the_interned_ones() -> None:
    _, plain = action_from_json({"seat": 0, "play": "7H"})
    _, jack = action_from_json({"seat": 1, "play": "JC", "suit": "S", "call": "mau"})
    assert plain is PLAYS[0][plain.card] and plain == Play(plain.card)
    assert jack is JACK_PLAYS[1][jack.card][3] and jack == Play(jack.card, 3, "mau")
    assert play_action(9, None, "maumau") is PLAYS[2][9]
    with pytest.raises(IllegalAction) as raised:
        play_action(9, 4)
    assert raised.value.code == "bad_suit"


def test_packed_steps_keep_unusual_data() -> None:
    table = Table.load(table_row(), [])
    step = StepRow(0, "deal", {"seed": 2**63 - 1, "salt": "ß€", "commitment": "c" * 64})
    table.accept(step)
    assert table.steps() == [step]

"""Game records: parsing, writing, replaying, golden records (docs/record.md)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maumau.engine import (
    Catch,
    Draw,
    Game,
    Layout,
    Pass,
    Play,
    Rules,
    card_code,
    parse_action,
    parse_card,
)
from maumau.engine.jsontext import dumps_json
from maumau.engine.record import (
    FORMAT,
    Record,
    RecordFormatError,
    RecordRound,
    UnreadableAction,
    UnreadableLayout,
    parse_record,
)
from maumau.engine.replay import (
    ReplayError,
    options_of,
    record_of,
    replay,
    replay_report,
    report_of,
)
from support.paths import RECORDS, ROOT

GOLDEN = sorted(p for p in RECORDS.glob("*.json") if not p.name.endswith(".expected.json"))
RANKS = "23456789TJQKA"


# --- building small records by hand ----------------------------------------------------


def deck(short: bool = False) -> list[str]:
    return [r + s for s in "CDHS" for r in RANKS if not short or RANKS.index(r) >= 5]


def layout(
    hands: list[list[str]],
    start: str,
    first: tuple[str, ...] = (),
    short: bool = False,
    free: bool = True,
) -> dict[str, Any]:
    """A layout whose draw pile is ``first`` and then the rest of the deck in order."""
    used = {c for h in hands for c in h} | {start, *first}
    stock = [*first] + [c for c in deck(short) if c not in used]
    out: dict[str, Any] = {"hands": hands, "start": start, "stock": stock}
    if free:
        out["hand_size_free"] = True
    return out


def record(
    rounds: list[dict[str, Any]], options: dict[str, Any] | None = None, players: int = 2
) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "options": options or {},
        "players": [f"P{i}" for i in range(players)],
        "rounds": rounds,
    }


def act(seat: int, verb: str, value: Any = True, **extra: Any) -> dict[str, Any]:
    return {"seat": seat, verb: value, **extra}


# Standard deck, 2 players, seat 0 leads on 9H; the first card drawn is 2H (playable).
BASE = layout(
    [["7H", "7C", "3S", "JD", "5H"], ["7D", "2S", "KH", "JS", "4C"]], "9H", ("2H",), free=False
)
# Catch mode, 2 players: seat 0 can go out in two plays (5H, 6H on 9H).
SHORT = layout([["5H", "6H"], ["KH", "2S", "3S"]], "9H")
CATCH = {"mau_penalty": "catch"}
# Every card but the start in a hand: nothing can ever be drawn.
EMPTY_STOCK = {
    "hands": [deck()[:26], [c for c in deck()[26:] if c != "9H"]],
    "start": "9H",
    "stock": [],
    "hand_size_free": True,
}


def base(*actions: dict[str, Any], options: dict[str, Any] | None = None) -> dict[str, Any]:
    return record([{"seed": 1, "layout": BASE, "actions": list(actions)}], options)


def short(*actions: dict[str, Any], then: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return record([{"seed": 1, "layout": SHORT, "actions": list(actions)}, *(then or [])], CATCH)


SHORT_OUT = [act(0, "play", "5H", call="mau"), act(1, "play", "KH"), act(0, "play", "6H")]


# --- golden records -------------------------------------------------------------------


def expected_of(path: Path) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(path.with_suffix(".expected.json").read_text())
    return result


def test_there_are_golden_records() -> None:
    names = {p.stem for p in GOLDEN}
    assert {"spec-example", "standard-3p", "penalty-100", "traditional-4p"} <= names
    assert {"gamerules-catch", "deals-draw", "deals-draw-small"} <= names
    assert sum(n.startswith("illegal-") for n in names) >= 5
    for path in GOLDEN:
        assert path.with_suffix(".expected.json").exists(), path.name


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden_record_replays_to_its_expected_report(path: Path) -> None:
    assert replay_report(path.read_text()) == expected_of(path)


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden_record_round_trips(path: Path) -> None:
    rec = parse_record(path.read_text())
    text = rec.dumps()
    assert parse_record(text) == rec
    assert parse_record(rec.to_json()) == rec
    assert parse_record(text).dumps() == text
    if expected_of(path)["ok"]:
        assert record_of(replay(rec)) == rec


def test_spec_example_is_the_documented_one() -> None:
    rec = parse_record((RECORDS / "spec-example.json").read_text())
    assert rec.options == {"preset": "penalty-100", "ace_skips": True}
    assert rec.players == ("Ana", "Bot (hard)")
    assert [r.seed for r in rec.rounds] == [1234, 99]
    assert rec.rounds[0].actions == (
        (0, parse_action("play 8D mau")),
        (0, parse_action("play KD maumau")),
    )
    game = replay(rec)
    assert game.round_index == 1 and not game.round_over and not game.finished


def hand_value(card: str, rules: Rules) -> int:
    """Card values as docs/rules.md#scoring states them (independent of the engine's
    table)."""
    rank = card[0]
    if rank == "J":
        return rules.jack_value
    if rank == "A":
        return rules.ace_value
    if rules.card_values == "face":
        return 10 if rank in "TQK" else int(rank)
    return {"T": 10, "K": 4, "Q": 3}.get(rank, 0)


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden_scores_follow_the_rule_book(path: Path) -> None:
    if not expected_of(path)["ok"]:
        return
    game = replay(path.read_text())
    rules = game.rules
    totals = [0] * game.n
    won = [0] * game.n
    for result in game.results:
        values = [sum(hand_value(c, rules) for c in hand) for hand in result.hands]
        assert list(result.hand_values) == values
        assert result.hands[result.out] == ()
        won[result.out] += 1
        if rules.scoring in ("penalty", "deals"):
            totals = [t + v for t, v in zip(totals, values, strict=True)]
        elif rules.scoring == "reward":
            totals[result.out] += sum(values)
        assert (list(result.totals), list(result.rounds_won)) == (totals, won)
    if game.finished:
        if rules.scoring == "single":
            assert game.winners == (game.results[0].out,)
        elif rules.scoring == "reward":
            assert totals[game.results[-1].out] >= rules.effective_limit
            assert game.winners == (game.results[-1].out,)
        else:
            low = min(totals)
            tied = [s for s in range(game.n) if totals[s] == low]
            best = max(won[s] for s in tied)
            assert game.winners == tuple(s for s in tied if won[s] == best)
            assert game.draw == (len(game.winners) > 1)


def test_golden_gamerules_game_has_catches() -> None:
    rec = parse_record((RECORDS / "gamerules-catch.json").read_text())
    catches = [a for r in rec.rounds for _, a in r.actions if isinstance(a, Catch)]
    assert len(catches) >= 2
    assert replay(rec).finished


# --- error codes through replay -----------------------------------------------------------

ERRORS: list[tuple[str, dict[str, Any], int | None, int | None]] = [
    ("not_your_turn", base(act(1, "play", "KH")), 0, 0),
    ("not_your_turn", base(act(5, "draw", 1)), 0, 0),
    ("card_not_in_hand", base(act(0, "play", "KH")), 0, 0),
    ("card_not_playable", base(act(0, "play", "3S")), 0, 0),
    (
        "card_not_playable",
        base(act(0, "play", "JD", suit="S"), act(1, "play", "JS", suit="S")),
        0,
        1,
    ),
    ("card_not_playable", base(act(0, "draw", 1), act(0, "play", "5H")), 0, 1),
    ("suit_required", base(act(0, "play", "JD")), 0, 0),
    ("bad_suit", base(act(0, "play", "5H", suit="S")), 0, 0),
    ("bad_suit", base(act(0, "play", "JD", suit="X")), 0, 0),
    ("must_draw", base(act(0, "play", "7H"), act(1, "play", "KH")), 0, 1),
    ("must_play", base(act(0, "draw", 1), options={"draw_when_able": False}), 0, 0),
    ("cannot_pass", base(act(0, "pass")), 0, 0),
    ("cannot_pass", base(act(0, "play", "7H"), act(1, "pass")), 0, 1),
    (
        "cannot_draw",
        record([{"seed": 1, "layout": EMPTY_STOCK, "actions": [act(0, "draw", 1)]}]),
        0,
        0,
    ),
    ("must_pass", short(*SHORT_OUT, act(1, "play", "2S")), 0, 3),
    ("already_drawn", base(act(0, "draw", 1), act(0, "draw", 1)), 0, 1),
    ("wrong_draw_count", base(act(0, "draw", 2)), 0, 0),
    ("wrong_draw_count", base(act(0, "play", "7H"), act(1, "draw", 1)), 0, 1),
    ("nothing_to_catch", base(act(1, "catch", 0)), 0, 0),
    ("nothing_to_catch", short(act(1, "catch", 0)), 0, 0),
    ("nothing_to_catch", short(act(0, "play", "5H"), act(1, "catch", 1)), 0, 1),
    ("nothing_to_catch", short(act(0, "play", "5H"), act(0, "catch", 0)), 0, 1),
    (
        "round_over",
        short(*SHORT_OUT[:2], act(0, "play", "6H", call="maumau"), act(1, "draw", 1)),
        0,
        3,
    ),
    ("round_not_over", short(then=[{"seed": 2}]), 1, None),
    (
        "round_not_over",
        short(then=[{"seed": 2, "layout": {"hands": [], "start": "??", "stock": []}}]),
        1,
        None,
    ),
    ("game_over", short(*SHORT_OUT, act(1, "pass"), then=[{"seed": 2}]), 1, None),
    ("bad_option", base(options={"nonsense": 1}), None, None),
    ("bad_option", base(options={"deck": 36}), None, None),
    ("bad_option", base(options={"preset": "nope"}), None, None),
    ("bad_option", record([], {"preset": "gamerules"}, players=5), None, None),
    ("bad_option", record([], players=1), None, None),
    ("bad_card", base(act(0, "play", "ZZ")), 0, 0),
    ("bad_card", base(act(0, "play", "7h")), 0, 0),
    ("bad_card", record([{"seed": 1, "actions": [act(0, "play", "2C")]}], {"deck": 32}), 0, 0),
    ("bad_card", record([{"seed": 1, "layout": dict(BASE, start="1H")}]), 0, None),
    ("bad_card", record([{"seed": 1, "layout": BASE}], {"deck": 32}), 0, None),
    ("bad_layout", record([{"seed": 1, "layout": dict(BASE, stock=BASE["stock"][1:])}]), 0, None),
    (
        "bad_layout",
        record([{"seed": 1, "layout": dict(BASE, stock=["2C", *BASE["stock"][1:]])}]),
        0,
        None,
    ),
    ("bad_layout", record([{"seed": 1, "layout": dict(SHORT, hand_size_free=False)}]), 0, None),
    ("bad_layout", record([{"seed": 1, "layout": BASE}], players=3), 0, None),
]


@pytest.mark.parametrize(("code", "data", "round", "action"), ERRORS, ids=[e[0] for e in ERRORS])
def test_error_codes(
    code: str, data: dict[str, Any], round: int | None, action: int | None
) -> None:
    report = replay_report(data)
    assert report["ok"] is False
    error = report["error"]
    assert (error["code"], error["round"], error["action"]) == (code, round, action)
    assert isinstance(error["message"], str) and error["message"]
    assert set(report) == {"ok", "error"} and set(error) == {"round", "action", "code", "message"}
    with pytest.raises(ReplayError) as info:
        replay(data)
    assert (info.value.code, info.value.round, info.value.action) == (code, round, action)


def test_the_first_error_wins() -> None:
    # an illegal action in round 0 comes before an unreadable layout in round 1
    data = base(act(1, "play", "KH"))
    data["rounds"].append({"seed": 2, "layout": dict(SHORT, start="XX")})
    assert replay_report(data)["error"]["code"] == "not_your_turn"


def test_bad_card_message_names_the_text_and_place() -> None:
    report = replay_report(record([{"seed": 1, "layout": dict(BASE, start="1H")}]))
    assert "'1H'" in report["error"]["message"] and "layout.start" in report["error"]["message"]
    assert "'ZZ'" in replay_report(base(act(0, "play", "ZZ")))["error"]["message"]


def test_legal_play_of_the_card_just_drawn_and_keeping_it() -> None:
    game = replay(base(act(0, "draw", 1), act(0, "pass"), act(1, "play", "KH")))
    assert game.round.top == parse_card("KH")
    game = replay(base(act(0, "draw", 1), act(0, "play", "2H")))
    assert game.to_move == 1


def test_a_catch_makes_the_offender_draw_and_the_round_go_on() -> None:
    game = replay(short(*SHORT_OUT, act(1, "catch", 0)))
    assert not game.round_over and bin(game.round.hands[0]).count("1") == 2
    game = replay(short(*SHORT_OUT, act(1, "pass")))
    assert game.finished and game.winners == (0,)


# --- format errors --------------------------------------------------------------------

GOOD = json.dumps(base(act(0, "play", "7H")))


def mutate(change: Any) -> str:
    data = json.loads(GOOD)
    change(data)
    return json.dumps(data)


def in_action(key: str, value: Any) -> Any:
    return lambda d: d["rounds"][0]["actions"][0].__setitem__(key, value)


def without(path: list[Any], key: str) -> Any:
    def change(d: Any) -> None:
        for p in path:
            d = d[p]
        del d[key]

    return change


def put(path: list[Any], key: str, value: Any) -> Any:
    def change(d: Any) -> None:
        for p in path:
            d = d[p]
        d[key] = value

    return change


FORMAT_ERRORS: list[tuple[str, str | bytes]] = [
    ("line 1 column 1: not JSON", "this is not json"),
    ("line 1 column 2: not JSON", "{"),
    ("not UTF-8", b'{"format": "\xff"}'),
    ("NaN is not a JSON number", '{"format": NaN}'),
    ("not a JSON text this reader accepts", '{"format": ' + "9" * 5000 + "}"),
    ("not a JSON text this reader accepts", "[" * 100_000 + "]" * 100_000),
    ("record: must be an object, not an array", "[]"),
    ('record: the key "format" is missing', mutate(without([], "format"))),
    (
        'format: must be "maumau-record/1", not "maumau-record/2"',
        mutate(put([], "format", "maumau-record/2")),
    ),
    ('record: the key "players" is missing', mutate(without([], "players"))),
    ('record: the key "rounds" is missing', mutate(without([], "rounds"))),
    ('record: unknown key "comment"', mutate(put([], "comment", "hi"))),
    (
        'record: the key "players" is given twice',
        GOOD.replace('"players"', '"players": [], "players"'),
    ),
    ("options: must be an object, not an array", mutate(put([], "options", []))),
    ("players: must be an array, not a string", mutate(put([], "players", "Ana"))),
    ("players[1]: must be a string, not a whole number", mutate(put(["players"], 1, 7))),
    ("rounds: must be an array, not an object", mutate(put([], "rounds", {}))),
    ("rounds[0]: must be an object, not a whole number", mutate(put(["rounds"], 0, 5))),
    ('rounds[0]: the key "seed" is missing', mutate(without(["rounds", 0], "seed"))),
    (
        "rounds[0].seed: must be a whole number, not a string",
        mutate(put(["rounds", 0], "seed", "1")),
    ),
    (
        "rounds[0].seed: must be a whole number, not a fraction",
        mutate(put(["rounds", 0], "seed", 1.5)),
    ),
    (
        "rounds[0].seed: must be a whole number, not a boolean",
        mutate(put(["rounds", 0], "seed", True)),
    ),
    ('rounds[0]: unknown key "deal"', mutate(put(["rounds", 0], "deal", 1))),
    (
        "rounds[0].commitment: must be 64 lowercase hex",
        mutate(put(["rounds", 0], "commitment", "AB" * 32)),
    ),
    (
        "rounds[0].commitment: must be 64 lowercase hex",
        mutate(put(["rounds", 0], "commitment", "ab")),
    ),
    ("rounds[0].salt: must be lowercase hex", mutate(put(["rounds", 0], "salt", "xyz"))),
    ("rounds[0].layout: must be an object", mutate(put(["rounds", 0], "layout", ["2C"]))),
    (
        'rounds[0].layout: the key "stock" is missing',
        mutate(without(["rounds", 0, "layout"], "stock")),
    ),
    (
        'rounds[0].layout: unknown key "discard"',
        mutate(put(["rounds", 0, "layout"], "discard", [])),
    ),
    (
        "rounds[0].layout.hands: must be an array",
        mutate(put(["rounds", 0, "layout"], "hands", "7H")),
    ),
    (
        "rounds[0].layout.hands[1]: must be an array",
        mutate(put(["rounds", 0, "layout", "hands"], 1, "7H")),
    ),
    (
        "rounds[0].layout.hands[1][2]: must be a string",
        mutate(put(["rounds", 0, "layout", "hands", 1], 2, 7)),
    ),
    (
        "rounds[0].layout.start: must be a string",
        mutate(put(["rounds", 0, "layout"], "start", None)),
    ),
    (
        "rounds[0].layout.stock[3]: must be a string",
        mutate(put(["rounds", 0, "layout", "stock"], 3, [])),
    ),
    (
        "rounds[0].layout.hand_size_free: must be true or false",
        mutate(put(["rounds", 0, "layout"], "hand_size_free", "yes")),
    ),
    ("rounds[0].actions: must be an array", mutate(put(["rounds", 0], "actions", {}))),
    (
        "rounds[0].actions[0]: must be an object",
        mutate(put(["rounds", 0, "actions"], 0, "play 7H")),
    ),
    (
        "rounds[0].actions[0]: an action needs exactly one of play, draw, pass, catch",
        mutate(put(["rounds", 0, "actions"], 0, {"seat": 0})),
    ),
    (
        "rounds[0].actions[0]: an action needs exactly one of play, draw, pass, catch; "
        "it has play, draw",
        mutate(in_action("draw", 1)),
    ),
    (
        'rounds[0].actions[0]: the key "seat" is missing',
        mutate(without(["rounds", 0, "actions", 0], "seat")),
    ),
    ('rounds[0].actions[0]: unknown key "card"', mutate(in_action("card", "7H"))),
    (
        "rounds[0].actions[0].seat: must be a whole number, not a string",
        mutate(in_action("seat", "0")),
    ),
    (
        "rounds[0].actions[0].play: must be a string, not a whole number",
        mutate(in_action("play", 7)),
    ),
    (
        'rounds[0].actions[0].call: must be "mau", "maumau" or null, not "Mau"',
        mutate(in_action("call", "Mau")),
    ),
    (
        "rounds[0].actions[0].suit: must be a string, not a whole number",
        mutate(in_action("suit", 2)),
    ),
    (
        'rounds[0].actions[0]: "call" goes only with "play", not with "draw"',
        mutate(put(["rounds", 0, "actions"], 0, {"seat": 0, "draw": 1, "call": "mau"})),
    ),
    (
        "rounds[0].actions[0].draw: must be 0 or more, not -1",
        mutate(put(["rounds", 0, "actions"], 0, {"seat": 0, "draw": -1})),
    ),
    (
        "rounds[0].actions[0].draw: must be a whole number, not a string",
        mutate(put(["rounds", 0, "actions"], 0, {"seat": 0, "draw": "1"})),
    ),
    (
        "rounds[0].actions[0].pass: must be true, not false",
        mutate(put(["rounds", 0, "actions"], 0, {"seat": 0, "pass": False})),
    ),
    (
        "rounds[0].actions[0].catch: must be a whole number, not null",
        mutate(put(["rounds", 0, "actions"], 0, {"seat": 0, "catch": None})),
    ),
    (
        'rounds[0].actions[0]: the key "seat" is given twice',
        GOOD.replace('"seat": 0', '"seat": 0, "seat": 1'),
    ),
]


@pytest.mark.parametrize(("message", "text"), FORMAT_ERRORS, ids=[m for m, _ in FORMAT_ERRORS])
def test_format_errors(message: str, text: str | bytes) -> None:
    with pytest.raises(RecordFormatError) as info:
        parse_record(text)
    assert message in str(info.value)
    assert info.value.code == "not_a_record"
    with pytest.raises(RecordFormatError):
        replay_report(text)


def test_the_good_record_used_for_format_errors_is_good() -> None:
    assert replay_report(GOOD)["ok"] is True


def test_optional_parts_may_be_left_out_or_null() -> None:
    bare = parse_record(
        '{"format": "maumau-record/1", "players": ["A", "B"], "rounds": [{"seed": 3}]}'
    )
    assert bare == Record(("A", "B"), (RecordRound(3),), {})
    nulls = {
        "format": FORMAT,
        "options": None,
        "players": ["A", "B"],
        "rounds": [{"seed": 3, "layout": None, "actions": None, "commitment": None, "salt": None}],
    }
    assert parse_record(nulls) == bare
    play = parse_record(base(act(0, "play", "7H", call=None, suit=None)))
    assert play.rounds[0].actions == ((0, Play(parse_action("play 7H").card)),)


# --- the typed record ------------------------------------------------------------------


def test_parse_gives_typed_actions_and_layout() -> None:
    rec = parse_record(
        base(act(0, "play", "JD", suit="H", call=None), act(1, "draw", 1), act(0, "pass"))
    )
    r0 = rec.rounds[0]
    assert isinstance(r0.layout, Layout) and not r0.layout.hand_size_free
    assert r0.layout == Layout.parse(**BASE)
    assert [card_code(c) for c in r0.layout.stock] == BASE["stock"]
    assert r0.actions == ((0, parse_action("play JD>H")), (1, Draw(1)), (0, Pass()))
    catch = parse_record(short(act(1, "catch", 0)))
    assert catch.rounds[0].actions == ((1, Catch(0)),)


def test_unreadable_cards_survive_a_round_trip() -> None:
    rec = parse_record(base(act(0, "play", "ZZ", suit="Q", call="mau")))
    seat, action = rec.rounds[0].actions[0]
    assert isinstance(action, UnreadableAction) and action.code == "bad_card"
    assert action.to_json(seat) == {"seat": 0, "play": "ZZ", "suit": "Q", "call": "mau"}
    assert parse_record(rec.dumps()) == rec
    rec = parse_record(record([{"seed": 1, "layout": dict(SHORT, start="9X")}]))
    assert isinstance(rec.rounds[0].layout, UnreadableLayout)
    assert rec.to_json()["rounds"][0]["layout"] == dict(SHORT, start="9X")
    assert parse_record(rec.dumps()) == rec


def test_commitment_and_salt_reach_the_game_and_come_back() -> None:
    data = base()
    data["rounds"][0].update(commitment="ab" * 32, salt="0f" * 32)
    rec = parse_record(data)
    game = replay(rec)
    assert (game.rounds[0].commitment, game.rounds[0].salt) == ("ab" * 32, "0f" * 32)
    assert record_of(game) == rec
    assert rec.to_json()["rounds"][0]["commitment"] == "ab" * 32


def test_dumps_is_stable_and_readable() -> None:
    rec = parse_record(short(*SHORT_OUT, then=[{"seed": 2}]))
    text = rec.dumps()
    assert text.endswith("}\n")
    lines = text.splitlines()
    assert '        {"seat": 0, "play": "5H", "call": "mau"},' in lines
    assert '    {"seed": 2, "actions": []}' in lines
    assert '  "options": {"mau_penalty": "catch"},' in lines
    assert json.loads(text) == rec.to_json()
    assert dumps_json([]) == "[]\n"


def test_names_with_any_characters_round_trip() -> None:
    data = record([{"seed": 1}])
    data["players"] = ['Änne "the ace"', "李"]
    rec = parse_record(data)
    assert rec.players == ('Änne "the ace"', "李")
    assert "李" in rec.dumps()
    assert parse_record(rec.dumps().encode()) == rec
    assert parse_record(b"\xef\xbb\xbf" + rec.dumps().encode()) == rec  # a BOM is fine


# --- options ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "preset", ["standard", "penalty-100", "penalty-150", "traditional", "gamerules"]
)
def test_options_of_a_preset_is_just_its_name(preset: str) -> None:
    assert options_of(Rules.from_preset(preset)) == {"preset": preset}


def test_options_of_keeps_the_preset_and_the_overrides() -> None:
    rules = Rules.from_dict({"preset": "gamerules", "ace_skips": True, "limit": 150, "deck": 52})
    assert options_of(rules) == {"preset": "gamerules", "deck": 52, "ace_skips": True}
    assert options_of(Rules.from_dict({"scoring": "reward"})) == {"scoring": "reward", "limit": 150}
    assert options_of(Rules()) == {}


OPTION_VALUES: dict[str, list[Any]] = {
    "deck": [52, 32],
    "hand_size": [3, 5, 7],
    "draw_when_able": [True, False],
    "seven_draw": [2, 3],
    "seven_stacking": [True, False],
    "eight_skips": [True, False],
    "nine_reverses": [True, False],
    "ace_skips": [True, False],
    "jack_on_jack": [True, False],
    "mau_penalty": ["auto", "catch", "off"],
    "mau_penalty_cards": [1, 2, 5],
    "scoring": ["single", "penalty", "deals", "reward"],
    "limit": [50, 100, 150],
    "deals": [1, 3],
    "jack_value": [0, 20],
    "ace_value": [11, 1],
    "card_values": ["face", "traditional"],
}
PRESET_NAMES = [None, "standard", "penalty-100", "penalty-150", "traditional", "gamerules"]


@st.composite
def option_sets(draw: st.DrawFn) -> dict[str, Any]:
    options: dict[str, Any] = {}
    preset = draw(st.sampled_from(PRESET_NAMES))
    if preset is not None:
        options["preset"] = preset
    for key in draw(st.lists(st.sampled_from(sorted(OPTION_VALUES)), max_size=5, unique=True)):
        options[key] = draw(st.sampled_from(OPTION_VALUES[key]))
    return options


@given(option_sets())
def test_options_of_gives_the_same_rules(options: dict[str, Any]) -> None:
    rules = Rules.from_dict(options)
    again = Rules.from_dict(options_of(rules))
    assert again.to_dict() == rules.to_dict()
    assert again.preset == rules.preset


# --- record_of, replay and random games ----------------------------------------------------


def play_randomly(game: Game, rng: random.Random, steps: int) -> None:
    """Take ``steps`` actions: mostly the listed ones, sometimes a forgotten call or a
    catch by any seat, dealing new rounds as needed."""
    for _ in range(steps):
        if game.finished:
            return
        if game.round_over:
            game.deal(rng.randrange(-(2**40), 2**40))
            continue
        seat = game.to_move
        catches = [
            (s, a) for s in range(game.n) for a in game.legal_actions(s) if isinstance(a, Catch)
        ]
        if catches and rng.random() < 0.5:
            catcher, catch = rng.choice(catches)
            game.apply(catch, catcher)
            continue
        actions = list(game.legal_actions())
        plays = [a for a in actions if isinstance(a, Play)]
        action = rng.choice(plays if plays and rng.random() < 0.85 else actions)
        if isinstance(action, Catch):
            continue
        if isinstance(action, Play) and rng.random() < 0.15:
            action = Play(action.card, action.suit, rng.choice([None, "mau", "maumau"]))
        game.apply(action, seat)


def game_state(game: Game) -> Any:
    rounds = []
    for dealt in game.rounds:
        state = dealt.state
        fields = {name: getattr(state, name) for name in state.__slots__ if name != "rng"}
        rounds.append((dealt.seed, dealt.layout, fields, state.rng.getstate()))
    return (
        game.rules.to_dict(),
        game.rules.preset,
        game.players,
        game.results,
        game.totals,
        game.rounds_won,
        game.finished,
        game.winners,
        game.draw,
        game.version,
        rounds,
    )


GAME_SETUPS = [
    ("standard", 3),
    ("penalty-100", 2),
    ("traditional", 4),
    ("gamerules", 3),
    ({"scoring": "deals", "deals": 3, "mau_penalty": "catch", "hand_size": 3}, 5),
    ({"preset": "gamerules", "seven_draw": 3, "draw_when_able": False, "jack_on_jack": True}, 2),
]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    setup=st.sampled_from(GAME_SETUPS),
    seed=st.integers(0, 2**32),
    policy=st.integers(0, 2**32),
    steps=st.integers(0, 400),
)
def test_record_of_any_game_replays_identically(
    setup: tuple[Any, int], seed: int, policy: int, steps: int
) -> None:
    options, players = setup
    game = Game.new(options, players=[f"seat {i}" for i in range(players)], seed=seed)
    play_randomly(game, random.Random(policy), steps)
    rec = record_of(game)
    assert rec.players == game.players
    text = rec.dumps()
    again = parse_record(text)
    assert again == rec
    copy = replay(again)
    assert game_state(copy) == game_state(game)
    assert replay_report(again) == report_of(game)
    assert record_of(copy).dumps() == text


def test_record_of_a_game_with_no_rounds() -> None:
    game = Game.new("penalty-100", players=["A", "B"])
    rec = record_of(game)
    assert rec == Record(("A", "B"), (), {"preset": "penalty-100"})
    assert replay_report(rec) == {
        "ok": True,
        "rounds": [],
        "finished": False,
        "winners": None,
        "draw": False,
        "totals": [0, 0],
        "rounds_won": [0, 0],
    }


def test_record_of_a_layout_round() -> None:
    game = Game.new({}, players=2, seed=5, layout=Layout.parse(**SHORT))
    game.apply(parse_action("play 5H mau"), 0)
    rec = record_of(game)
    assert rec.rounds[0].layout == Layout.parse(**SHORT)
    assert rec.to_json()["rounds"][0] == {
        "seed": 5,
        "layout": SHORT,
        "actions": [{"seat": 0, "play": "5H", "call": "mau"}],
    }


def test_the_docs_examples_are_real() -> None:
    docs = (ROOT / "docs" / "record.md").read_text()
    blocks = [b.split("```")[0] for b in docs.split("```json\n")[1:]]
    assert json.loads(blocks[0]) == json.loads((RECORDS / "catch-small.json").read_text())
    assert json.loads(blocks[1]) == expected_of(RECORDS / "catch-small.json")
    error = json.loads(blocks[2])
    assert error == expected_of(RECORDS / "illegal-must-draw.json")


def test_a_missed_mau_cannot_be_caught_after_the_next_action() -> None:
    # docs/rules.md#calling-mau: a missed "Mau" may be caught until anyone's next action;
    # seat 1 taking the pending draw of seat 0's Seven is such an action.
    hands = [["7H", "8S"], ["QS", "AS", "TS"]]
    data = record(
        [
            {
                "seed": 1,
                "layout": layout(hands, "9H", short=True),
                "actions": [act(0, "play", "7H"), act(1, "draw", 2), act(1, "catch", 0)],
            }
        ],
        {"preset": "gamerules"},
    )
    error = replay_report(data)["error"]
    assert (error["code"], error["round"], error["action"]) == ("nothing_to_catch", 0, 2)


def test_options_of_keeps_a_limit_that_the_scoring_would_change() -> None:
    """``limit`` 100 is the standard preset's, but reward scoring's own default is 150:
    the shortest options must still say 100 (found by the property test above)."""
    rules = Rules.from_dict({"preset": "standard", "scoring": "reward", "limit": 100})
    assert options_of(rules) == {"preset": "standard", "scoring": "reward", "limit": 100}
    assert Rules.from_dict(options_of(rules)).to_dict() == rules.to_dict()

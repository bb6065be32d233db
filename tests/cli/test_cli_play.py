"""``maumau play`` driven through a real terminal (a pseudo-terminal, with pexpect): a
game played to the end by typed moves, bad input answered with the engine's error and
the legal moves, and Ctrl-C / end of input leaving a record the record tools accept."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from maumau.cli.main import main
from maumau.engine import parse_record, replay

pexpect = pytest.importorskip("pexpect")

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
MOVE = r"Your move \(\? for help\) > "
NEXT_ROUND = r"Enter: next round, q: save and quit > "
CATCH = r"Catch \(c SEAT\) or Enter to let it go > "
#: generous: the machine running the tests may be busy
WAIT = 120
#: the terminal's columns: wide enough for a line with the record's path in a temporary
#: folder
WIDTH = 200


def spawn(*args: str) -> pexpect.spawn:
    # (the size said outright too: under pytest-xdist rich took 80 columns, and wrapped
    # the record's path, longer there by the worker's folder, which the tests read)
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(WIDTH), "LINES": "40"}
    return pexpect.spawn(
        sys.executable,
        ["-m", "maumau", "play", "--bot-delay", "0", *args],
        dimensions=(40, WIDTH),
        encoding="utf-8",
        timeout=WAIT,
        env=env,
    )


def plain(text: str) -> str:
    return ANSI.sub("", text).replace("\r", "")


def shown_moves(before: str) -> list[str]:
    """The moves the program lists last before the prompt."""
    line = re.findall(r"^Moves: (.*)$", plain(before), re.M)[-1]
    return [m.split(" (")[0] for m in line.strip().split("  ")]


def shown_hand(before: str) -> list[str]:
    line = re.findall(r"^Your hand: (.*)$", plain(before), re.M)[-1]
    return [word[:2] for word in line.split()]


def verify(capsys: pytest.CaptureFixture[str], path: Path) -> dict[str, object]:
    """``maumau verify`` and ``maumau record replay`` on the saved record."""
    assert main(["record", "replay", str(path)]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert main(["verify", str(path)]) == 0
    verified = json.loads(capsys.readouterr().out)
    assert verified["ok"] is True
    assert all(r["status"] == "verified" for r in verified["rounds"])
    result: dict[str, object] = replayed
    return result


@pytest.mark.system
def test_a_game_is_played_to_the_end_by_typed_moves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.json"
    child = spawn(
        "--seats", "me,random", "--preset", "standard", "--seed", "3", "--record", str(path)
    )
    typed = 0
    bad_answered = help_shown = False
    for _ in range(500):
        i = child.expect([MOVE, NEXT_ROUND, CATCH, r"Game over: [^\n]*\n"])
        if i == 3:
            break
        if i != 0:
            child.sendline("")
            continue
        moves = shown_moves(child.before)
        hand = shown_hand(child.before)
        if not help_shown:
            child.sendline("?")
            child.expect(MOVE)
            assert "Type a move in the record notation" in plain(child.before)
            assert shown_moves(child.before) == moves
            help_shown = True
        if not bad_answered:
            # a card that is in no hand the player can see: the engine refuses it
            absent = next(c for c in ("AS", "KS", "QS", "AH", "KH", "QH") if c not in hand)
            child.sendline(absent)
            child.expect(MOVE)
            answer = plain(child.before)
            assert f"card_not_in_hand: seat 0 does not hold {absent}" in answer
            assert shown_moves(child.before) == moves  # and the legal moves again
            child.sendline("7X mau")
            child.expect(MOVE)
            assert "Not a move: '7X' is not a card" in plain(child.before)
            bad_answered = True
        child.sendline(moves[0])
        typed += 1
    else:
        pytest.fail("the game did not end within 500 prompts")
    summary = plain(child.before + child.after)
    child.expect(r"Saved the game to (\S+)")
    assert child.match.group(1) == str(path)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert typed > 0 and bad_answered
    assert "Game over:" in summary
    report = verify(capsys, path)
    assert report["finished"] is True
    record = parse_record(path.read_text())
    assert record.players == ("You", "random")
    game = replay(record)
    assert game.finished and game.winners
    mine = sum(1 for r in record.rounds for seat, _ in r.actions if seat == 0)
    assert mine == typed  # every move typed is in the record, and nothing else of ours


@pytest.mark.system
def test_ctrl_c_leaves_a_record_of_the_game_so_far(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "stopped.json"
    child = spawn(
        "--seats",
        "normal,me,hard:50,normal",
        "--preset",
        "penalty-100",
        "--seed",
        "11",
        "--record",
        str(path),
    )
    child.expect(MOVE)
    child.sendline(shown_moves(child.before)[0])
    child.expect(MOVE)
    child.sendintr()
    child.expect(r"Stopped \(Ctrl-C\)\.")
    child.expect(r"Saved the game so far \(0 rounds done\) to (\S+)")
    assert child.match.group(1) == str(path)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert "Traceback" not in plain(child.before)
    report = verify(capsys, path)
    assert report["finished"] is False
    record = parse_record(path.read_text())
    assert record.players == ("normal#1", "You", "hard:50", "normal#2")
    assert len(record.rounds) == 1
    assert sum(1 for seat, _ in record.rounds[0].actions if seat == 1) == 1


@pytest.mark.system
def test_end_of_input_saves_and_exits_cleanly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "eof.json"
    child = spawn("--seats", "me,easy,easy", "--seed", "5", "--record", str(path))
    child.expect(MOVE)
    child.sendeof()
    child.expect(r"Stopped\.")
    child.expect(r"Saved the game so far")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    report = verify(capsys, path)
    assert report["finished"] is False and report["rounds"] == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seats", "hard,normal"], "put 'me' exactly once"),
        (["--seats", "me,me"], "put 'me' exactly once"),
        (["--seats", "me,genius"], "unknown bot level 'genius'"),
        (["--seats", "me", "--preset", "standard"], "player"),
        (["--set", "deck=33"], "deck"),
        (["--record", "/no/such/dir/x.json"], "there is no directory /no/such/dir"),
    ],
)
def test_a_bad_command_line_is_refused_before_playing(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert main(["play", *args]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.system
def test_names_and_typed_text_are_printed_as_they_are(tmp_path: Path) -> None:
    path = tmp_path / "marked.json"
    child = spawn(
        "--seats", "me,random", "--name", "[bold]Ana[/]", "--seed", "2", "--record", str(path)
    )
    child.expect(MOVE)
    assert "[bold]Ana[/]" in plain(child.before)
    child.sendline("[/x]")
    child.expect(MOVE)
    assert "Not a move: '[/X]' is not a card" in plain(child.before)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert parse_record(path.read_text()).players[0] == "[bold]Ana[/]"

"""``bench/rounds.py`` (paired points per round against ``normal``) and the research
player it compares with ``hard`` (``bench/lab/ismcts.py``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import rounds
from lab.ismcts import IsmctsBot, Opponents
from maumau.bots import make_bot
from maumau.engine import Game, Rules
from support.paths import ROOT

SCRIPT = ROOT / "bench" / "rounds.py"


def test_a_deal_is_played_once_by_four_normals_and_once_per_seat_with_the_bot() -> None:
    rules = Rules.from_preset("penalty-100")
    seed = rounds.deal_seed(3)
    base, _ = rounds.points(rules, 4, [make_bot("normal", seed=100 + i) for i in range(4)], seed)
    rows = rounds.one_deal(("ismcts-own:40", "penalty-100", 4, 3, 0.7))
    assert [r["seat"] for r in rows] == [0, 1, 2, 3]
    assert [r["normal"] for r in rows] == base
    again = rounds.one_deal(("ismcts-own:40", "penalty-100", 4, 3, 0.7))
    assert again == rows  # seeded: the same deal gives the same rounds


def test_the_summary_pairs_each_round_with_normal_in_the_same_seat() -> None:
    rows = [
        {"deal": 0, "seat": 0, "bot": 10, "normal": 16, "out": False},
        {"deal": 0, "seat": 1, "bot": 0, "normal": 2, "out": True},
    ]
    figures = rounds.summary(rows)
    assert figures["difference"] == -4.0
    assert figures["standard_error"] == pytest.approx(2.0)
    assert figures["out_share"] == 0.5


@pytest.mark.parametrize("spec", ["nope", "hard:0", "ismcts:x", "normal"])
def test_an_unknown_bot_is_named_in_the_error(spec: str) -> None:
    with pytest.raises(ValueError, match=spec):
        rounds.make_tested(spec, 1)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``bench/rounds.py argv`` in this process: its exit status, stdout and stderr."""
    try:
        status = rounds.main(list(argv))
    except SystemExit as exc:
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def test_the_script_refuses_a_bad_player_count_and_says_why(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, _, err = run(capsys, "--players", "9")
    assert status == 2
    assert "2 to 8 players, not 9" in err


@pytest.mark.parametrize("opponents", ["tree", "playout"])
def test_ismcts_chooses_legal_actions_and_the_same_ones_for_the_same_seed(
    opponents: Opponents,
) -> None:
    rules = Rules.from_preset("penalty-100")
    searched = 0
    for seed in range(3):
        game = Game(rules, ["a", "b", "c", "d"])
        game.deal(seed)
        bots = [make_bot("normal", seed=i) for i in range(4)]
        decisions = 0
        while not game.round_over and decisions < 6:
            seat = game.to_move
            view, legal = game.view(seat), game.legal_actions(seat)
            if seat == 0 and len(legal) > 1:
                first, second = (
                    IsmctsBot(seed, simulations=60, opponents=opponents).choose(view, legal)
                    for _ in range(2)
                )
                assert first in legal
                assert first == second
                decisions += 1
            game.apply(bots[seat].choose(view, legal), seat)
        searched += decisions
    assert searched >= 6


def test_two_runs_are_paired_on_the_rounds_both_played() -> None:
    now = [
        {"deal": 0, "seat": 0, "bot": 10, "normal": 16, "out": False},
        {"deal": 0, "seat": 1, "bot": 4, "normal": 2, "out": False},
        {"deal": 1, "seat": 0, "bot": 7, "normal": 9, "out": False},
    ]
    earlier = [
        {"deal": 0, "seat": 0, "bot": 12, "normal": 16, "out": False},
        {"deal": 0, "seat": 1, "bot": 8, "normal": 2, "out": False},
    ]
    count, mean, error = rounds.paired(now, earlier)
    assert (count, mean) == (2, -3.0)
    assert error == pytest.approx(1.0)


def test_the_script_refuses_a_compare_file_that_is_not_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "other.json"
    bad.write_text('{"summary": {}}')
    status, _, err = run(capsys, "--compare", str(bad))
    assert status == 2
    assert "other.json: not a --json file of this script" in err


@pytest.mark.system
def test_a_run_writes_its_rows_and_a_second_run_pairs_with_them(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    base = [sys.executable, str(SCRIPT), "--deals", "1", "--first-deal", "5"]
    done = subprocess.run(
        [*base, "--bot", "hard:10", "--json", str(first)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    done = subprocess.run(
        [*base, "--bot", "ismcts:10", "--json", str(second), "--compare", str(first)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "minus hard:10 of a.json on the same 4 rounds" in done.stdout
    written = json.loads(second.read_text())
    assert written["args"]["compare"] == str(first)
    assert [(r["deal"], r["seat"]) for r in written["rows"]] == [(5, s) for s in range(4)]
    assert written["summary"]["rounds"] == 4

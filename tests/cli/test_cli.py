"""The ``maumau`` command line: ``record replay``, ``rules``, ``--version``."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from maumau import __version__
from maumau.cli.main import main
from maumau.engine import Rules
from support.paths import RECORDS, ROOT

GOLDEN = sorted(p for p in RECORDS.glob("*.json") if not p.name.endswith(".expected.json"))
EXAMPLE = RECORDS / "spec-example.json"


def expected_of(path: Path) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(path.with_suffix(".expected.json").read_text())
    return result


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# --- record replay ---------------------------------------------------------------------


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_replay_prints_the_report(capsys: pytest.CaptureFixture[str], path: Path) -> None:
    status, out, err = run(capsys, "record", "replay", str(path))
    expected = expected_of(path)
    assert json.loads(out) == expected
    if expected["ok"]:
        assert (status, err) == (0, "")
    else:
        assert status == 1
        assert expected["error"]["code"] in err and expected["error"]["message"] in err


def test_replay_error_on_stderr_says_where(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "record", "replay", str(RECORDS / "illegal-must-draw.json"))
    assert status == 1
    assert "round 0, action 2: must_draw" in err


def test_replay_reads_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(EXAMPLE.read_bytes())))
    status, out, _ = run(capsys, "record", "replay", "-")
    assert status == 0 and json.loads(out) == expected_of(EXAMPLE)
    monkeypatch.setattr(sys, "stdin", io.StringIO(EXAMPLE.read_text()))  # no .buffer
    status, out, _ = run(capsys, "record", "replay", "-")
    assert status == 0 and json.loads(out) == expected_of(EXAMPLE)


def test_replay_output_is_one_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "record", "replay", str(EXAMPLE))
    assert out.endswith("}\n")
    assert list(json.loads(out)) == [
        "ok",
        "rounds",
        "finished",
        "winners",
        "draw",
        "totals",
        "rounds_won",
    ]


NOT_RECORDS = [
    ("garbage", "not json at all", "line 1 column 1: not JSON"),
    (
        "format",
        '{"format": "pgn", "players": [], "rounds": []}',
        'format: must be "maumau-record/1"',
    ),
    (
        "verbs",
        '{"format": "maumau-record/1", "players": ["A", "B"], '
        '"rounds": [{"seed": 1, "actions": [{"seat": 0, "play": "7H", "pass": true}]}]}',
        "rounds[0].actions[0]: an action needs exactly one of play, draw, pass, catch",
    ),
    (
        "unknown key",
        '{"format": "maumau-record/1", "players": ["A", "B"], "rounds": [{"seed": 1, "x": 2}]}',
        'rounds[0]: unknown key "x"',
    ),
]


@pytest.mark.parametrize(("name", "text", "where"), NOT_RECORDS, ids=[n[0] for n in NOT_RECORDS])
def test_not_a_record_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, text: str, where: str
) -> None:
    path = tmp_path / "game.json"
    path.write_text(text)
    status, out, err = run(capsys, "record", "replay", str(path))
    assert status == 2
    report = json.loads(out)
    assert report["ok"] is False and report["error"]["code"] == "not_a_record"
    assert where in report["error"]["message"]
    assert where in err and str(path) in err


def test_missing_or_unreadable_file_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "nope.json"
    status, out, err = run(capsys, "record", "replay", str(missing))
    assert status == 2
    assert json.loads(out)["error"]["code"] == "cannot_read"
    assert str(missing) in err and "No such file" in err
    status, out, err = run(capsys, "record", "replay", str(tmp_path))
    assert status == 2 and json.loads(out)["error"]["code"] == "cannot_read"


def test_replay_needs_a_file_argument(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "record", "replay")
    assert status == 2 and "FILE" in err


# --- rules --------------------------------------------------------------------------------


def test_rules_prints_every_default(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "rules")
    assert status == 0
    assert json.loads(out) == Rules().to_dict()
    assert json.loads(out)["limit"] == 100


def test_rules_with_preset_and_overrides(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys, "rules", "--preset", "gamerules", "--set", "ace_skips=true", "--set", "deck=52"
    )
    assert status == 0
    options = json.loads(out)
    assert (
        options == Rules.from_dict({"preset": "gamerules", "ace_skips": True, "deck": 52}).to_dict()
    )
    assert (options["ace_skips"], options["deck"], options["mau_penalty"]) == (True, 52, "catch")


def test_rules_set_takes_bare_words_as_text(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys, "rules", "--set", "scoring=reward", "--set", 'card_values="traditional"'
    )
    assert status == 0
    options = json.loads(out)
    assert (options["scoring"], options["limit"], options["card_values"]) == (
        "reward",
        150,
        "traditional",
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--set", "colour=red"], "unknown option key 'colour'"),
        (["--set", "deck=36"], "deck: must be one of 52, 32, not 36"),
        (["--set", "ace_skips=yes"], "ace_skips: must be true or false"),
        (["--set", "ace_skips"], "write key=value"),
        (["--preset", "chess"], "unknown preset 'chess'"),
    ],
)
def test_rules_refuses_bad_options(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, out, err = run(capsys, "rules", *argv)
    assert status == 2 and out == ""
    assert message in err


# --- the program -------------------------------------------------------------------------


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    """The version is the one pyproject.toml gives: ``maumau.__version__`` is written
    out (reading the installed metadata costs every ``import maumau`` tens of ms), so
    this is what keeps the two the same."""
    import tomllib

    pyproject = ROOT / "pyproject.toml"
    written = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"]
    status, out, _ = run(capsys, "--version")
    assert status == 0 and out.strip() == f"maumau {written}" == f"maumau {__version__}"


@pytest.mark.parametrize("argv", [[], ["record"], ["frobnicate"], ["rules", "--bogus"]])
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "" and "usage:" in err


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "record", "replay", "--help")
    assert status == 0 and "standard input" in out


@pytest.mark.system
def test_real_process_reads_stdin() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "maumau", "record", "replay", "-"],
        input=EXAMPLE.read_bytes(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected_of(EXAMPLE)


@pytest.mark.system
def test_installed_script_exit_statuses(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "maumau"
    if not script.exists():
        pytest.skip("the maumau script is not installed next to this Python")
    bad = subprocess.run(
        [str(script), "record", "replay", "-"], input=b"{}", capture_output=True, timeout=60
    )
    assert bad.returncode == 2 and b"format" in bad.stderr
    illegal = subprocess.run(
        [str(script), "record", "replay", str(RECORDS / "illegal-not-your-turn.json")],
        capture_output=True,
        timeout=60,
    )
    assert illegal.returncode == 1
    assert json.loads(illegal.stdout)["error"]["code"] == "not_your_turn"

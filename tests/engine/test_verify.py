"""The verifiable shuffle: commitments check out, tampering is caught."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from maumau.bots import make_bot
from maumau.bots.match import play_match
from maumau.cli.main import main
from maumau.engine import Layout, Rules, record_of
from maumau.engine.round import Round
from maumau.engine.table import table_for
from maumau.engine.verify import commitment_of, verify_report

SALT = "9f" * 32


def committed_record(seed: int = 4) -> dict[str, Any]:
    """A finished bot game whose rounds carry commitments, as a live server writes them."""
    rules = Rules.from_preset("penalty-100")
    bots = [make_bot("normal", 1), make_bot("easy", 2)]
    _, game = play_match(bots, rules, seed=seed)
    data = record_of(game).to_json()
    for i, dealt in enumerate(data["rounds"]):
        salt = f"{i:02x}" + SALT[2:]
        dealt["salt"] = salt
        dealt["commitment"] = hashlib.sha256(f"{dealt['seed']}:{salt}".encode()).hexdigest()
    return data


def test_commitment_is_sha256_of_seed_and_salt() -> None:
    expected = hashlib.sha256(b"1234:" + SALT.encode()).hexdigest()
    assert commitment_of(1234, SALT) == expected


def test_an_honest_record_verifies() -> None:
    report = verify_report(committed_record())
    assert report["ok"] is True
    assert report["rounds"] and {r["status"] for r in report["rounds"]} == {"verified"}
    assert report["replay"]["ok"] and report["replay"]["finished"]


def test_a_changed_seed_is_caught() -> None:
    data = committed_record()
    data["rounds"][1]["seed"] += 1
    report = verify_report(data)
    assert report["ok"] is False
    assert report["rounds"][1]["status"] == "mismatch"
    assert report["rounds"][0]["status"] == "verified"


def test_rounds_without_commitment_or_salt_do_not_verify() -> None:
    data = committed_record()
    del data["rounds"][0]["commitment"]
    del data["rounds"][1]["salt"]
    statuses = [r["status"] for r in verify_report(data)["rounds"]]
    assert statuses[:2] == ["not_committed", "no_salt"]
    assert verify_report(data)["ok"] is False


def _layout_of_seed(seed: int, players: int, rules: Rules) -> Layout:
    state = Round.deal(table_for(rules), players, seed)
    hands = tuple(tuple(c for c in range(52) if h >> c & 1) for h in state.hands)
    return Layout(hands, state.discard[0], tuple(reversed(state.stock)))


def test_a_layout_must_be_what_the_seed_deals() -> None:
    rules = Rules.from_preset("standard")
    honest = _layout_of_seed(77, 2, rules)
    data: dict[str, Any] = {
        "format": "maumau-record/1",
        "players": ["A", "B"],
        "rounds": [
            {"seed": 77, "salt": SALT, "commitment": commitment_of(77, SALT),
             "layout": honest.to_json()}
        ],
    }  # fmt: skip
    assert verify_report(data)["rounds"][0]["status"] == "verified"
    swapped = honest.to_json()
    swapped["hands"][0][0], swapped["hands"][1][0] = swapped["hands"][1][0], swapped["hands"][0][0]
    data["rounds"][0]["layout"] = swapped
    report = verify_report(data)
    assert report["rounds"][0]["status"] == "layout_differs"
    assert report["ok"] is False


def test_verify_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(committed_record()))
    assert main(["verify", str(good)]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
    bad_data = committed_record()
    bad_data["rounds"][0]["seed"] = random.Random(1).getrandbits(40)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(bad_data))
    assert main(["verify", str(bad)]) == 1
    captured = capsys.readouterr()
    assert "round 0: mismatch" in captured.err
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    assert main(["verify", str(garbage)]) == 2
    assert main(["verify", str(tmp_path / "missing.json")]) == 2

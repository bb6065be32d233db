"""``maumau.eval``: fixed suites give the same results twice, a policy sees exactly
what ``maumau_v0`` shows, policies and bots both enter, a wrong policy is named, and
the results file reads back.  The suites here are tiny (the standard preset plays one
round per match), so the whole file takes seconds."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from maumau.bots import EasyBot, RandomBot
from maumau.eval import (
    SCHEMA,
    SUITES,
    IllegalPolicyAction,
    Level,
    PolicyBot,
    PolicyError,
    Suite,
    evaluate,
    load_policy,
    read_results,
)

TINY = replace(
    SUITES["standard-2p-v0"], name="tiny-2p", deals=4, opponents=("random", "easy"), optional=()
)


def first_legal(observation: Any, mask: Any) -> int:
    return int(np.flatnonzero(mask)[0])


class UniformPolicy:
    """Uniform over the legal action indices, seeded."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def __call__(self, observation: Any, mask: Any) -> int:
        return int(self.rng.choice(np.flatnonzero(mask)))


def _without_run(document: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in document.items() if k != "run"}


def test_the_named_suites_are_fixed() -> None:
    assert set(SUITES) >= {"standard-2p-v0", "penalty100-4p-v0"}
    standard = SUITES["standard-2p-v0"]
    assert (standard.players, standard.rules, standard.opponents) == (
        2,
        "standard",
        ("random", "easy", "normal", "hard"),
    )
    four = SUITES["penalty100-4p-v0"]
    # the optional ISMCTS comes last: the tables without it keep their numbers (and deals)
    assert four.tables()[:4] == [
        ("random", "easy", "normal"),
        ("random", "easy", "hard"),
        ("random", "normal", "hard"),
        ("easy", "normal", "hard"),
    ]
    assert replace(four, optional=()).tables() == four.tables()[:4]


def test_the_same_suite_gives_the_same_results() -> None:
    first = evaluate(first_legal, TINY, resamples=20)
    again = evaluate(first_legal, TINY, resamples=20)
    assert _without_run(first.to_json()) == _without_run(again.to_json())
    assert len(first.to_json()["outcomes"]) == 2 * 4 * 2  # opponents x deals x seats
    # another seed deals other cards
    other = evaluate(first_legal, replace(TINY, seed=1), resamples=20)
    assert other.to_json()["outcomes"] != first.to_json()["outcomes"]


def test_every_deal_is_played_from_every_seat() -> None:
    results = evaluate(first_legal, TINY, resamples=0)
    blocks: dict[tuple[int, int], list[int]] = {}
    for o in results.to_json()["outcomes"]:
        blocks.setdefault((o["table"], o["block"]), []).append(o["rotation"])
    assert len(blocks) == 8 and all(sorted(r) == [0, 1] for r in blocks.values())


def test_a_random_policy_scores_like_the_random_bot() -> None:
    suite = replace(TINY, name="random-2p", deals=60, opponents=("easy",))
    policy = evaluate(UniformPolicy(3), suite, resamples=0)
    bot = evaluate(Level("random"), suite, resamples=0)
    low, high = policy.wilson95
    assert low <= bot.win_rate <= high
    low, high = bot.wilson95
    assert low <= policy.win_rate <= high
    # and the first legal action (no strategy) is not what random does
    assert policy.to_json()["outcomes"] != bot.to_json()["outcomes"]


def test_a_bot_a_bot_class_and_a_level_enter_alike() -> None:
    by_class = evaluate(EasyBot, TINY, resamples=0)
    by_level = evaluate(Level("easy"), TINY, resamples=0)
    # both are made anew with each match's seed: the same decisions, the same results
    assert by_class.to_json()["outcomes"] == by_level.to_json()["outcomes"]
    one = evaluate(RandomBot(5), TINY, resamples=0)  # an instance plays as it is
    assert one.to_json()["overall"]["matches"] == 16
    assert load_policy("easy") == Level("easy")
    assert load_policy("maumau.bots.simple:EasyBot") is EasyBot


def test_a_policy_sees_what_maumau_v0_shows() -> None:
    """At every decision of a maumau_v0 game, the policy is handed that environment's
    observation and mask, and its index becomes that environment's action."""
    from maumau.env import maumau_v0

    env = maumau_v0.raw_env(rules="catch", players=3)
    env.reset(seed=11)
    seen: list[tuple[Any, Any]] = []
    rng = random.Random(2)

    def recording(observation: Any, mask: Any) -> int:
        seen.append((observation, mask))
        return int(rng.choice(np.flatnonzero(mask)))

    bot = PolicyBot(recording)
    steps = 0
    while not (env.session.finished or env.session.truncated) and steps < 300:
        agent = env.agent_selection
        seat = env.session.to_move
        shown = env.observe(agent)
        action = bot.choose(env.session.view(seat), env.session.game.legal_actions())
        observation, mask = seen[-1]
        assert np.array_equal(observation, shown["observation"])
        assert np.array_equal(mask, shown["action_mask"]) and mask.dtype == np.int8
        index = next(i for i, a in env.session.legal().items() if a == action)
        env.step(index)
        steps += 1
    assert steps > 20


def test_an_illegal_choice_is_named() -> None:
    with pytest.raises(IllegalPolicyAction, match=r"chose \d+, which is not a legal action now"):
        evaluate(lambda observation, mask: int(np.flatnonzero(mask == 0)[0]), TINY)
    with pytest.raises(IllegalPolicyAction, match=r"chose 999, .*; legal: \d+ \("):
        evaluate(lambda observation, mask: 999, TINY)
    with pytest.raises(IllegalPolicyAction, match="chose 'draw'"):
        evaluate(lambda observation, mask: "draw", TINY)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("first_legal", "give module:function"),
        ("hard:x", "only hard takes a budget"),
        ("ismcts:0", "ismcts:N with N >= 1"),
        ("no_such_module_here:f", "cannot import module 'no_such_module_here'"),
        ("maumau.eval:nothing", "has no attribute 'nothing'"),
        ("maumau.eval:SCHEMA", "'SCHEMA' is str, not callable"),
        (":f", "give module:function"),
    ],
)
def test_a_bad_policy_spec_says_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        load_policy(spec)


def test_what_cannot_play_is_refused() -> None:
    with pytest.raises(PolicyError, match="neither a policy"):
        evaluate(42, TINY)
    with pytest.raises(ValueError, match="unknown suite 'nope'"):
        evaluate(first_legal, "nope")


def test_an_optional_opponent_that_cannot_be_made_is_skipped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib

    def missing(name: str) -> None:
        raise ImportError(f"No module named {name!r}")

    monkeypatch.setattr(importlib, "import_module", missing)
    suite = replace(TINY, deals=1, opponents=("random",), optional=("ismcts:10",))
    results = evaluate(first_legal, suite, resamples=0)
    assert "uv sync --extra spiel" in results.to_json()["skipped"]["ismcts:10"]
    assert [row["opponents"] for row in results.tables] == [["random"]]
    with pytest.raises(ValueError, match="cannot play ismcts:10"):
        evaluate(first_legal, replace(suite, opponents=("ismcts:10",), optional=()))


def test_the_results_file_reads_back(tmp_path: Path) -> None:
    suite = Suite("tiny-4p", "penalty-100", 4, deals=1, opponents=("random", "easy", "normal"))
    suite = replace(suite, optional=())
    results = evaluate(first_legal, suite, resamples=10)
    path = tmp_path / "out" / "results.json"
    results.write(path)
    document = json.loads(path.read_text())
    assert document["schema"] == SCHEMA and document["entrant"] == "test_eval:first_legal"
    assert document["suite"]["name"] == "tiny-4p"
    row = results.table("random", "easy", "normal")
    assert row["matches"] == 4 and 0 <= row["wilson95"][0] <= row["win_rate"]
    strengths = document["plackett_luce"]["strengths"]
    assert set(strengths) == {"entrant", "random", "easy", "normal"}
    assert sum(strengths.values()) == pytest.approx(1.0, abs=1e-5)
    assert read_results(path).to_json() == document
    path.write_text(json.dumps({**document, "schema": "maumau-eval/0"}))
    with pytest.raises(ValueError, match="not a results file of schema maumau-eval/1"):
        read_results(path)


def test_the_command_line_writes_the_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from maumau.cli.main import main

    monkeypatch.setitem(SUITES, "standard-2p-v0", replace(TINY, name="standard-2p-v0"))
    out = tmp_path / "r.json"
    args = ["eval", "--suite", "standard-2p-v0", "--deals", "1", "--resamples", "0"]
    assert main([*args, "--policy", "maumau.bots.simple:EasyBot", "--out", str(out)]) == 0
    document = read_results(out).to_json()
    assert document["entrant"] == "maumau.bots.simple:EasyBot"
    assert document["suite"]["deals"] == 1 and document["suite"]["name"].endswith("-trial1")
    assert "vs easy:" in capsys.readouterr().out
    # a trial run plays the suite's first deals
    full = evaluate(EasyBot, replace(TINY, name="standard-2p-v0"), resamples=0).to_json()
    trial = [o for o in full["outcomes"] if o["block"] < 1]
    assert document["outcomes"] == trial
    assert main([*args, "--policy", "nowhere_at_all:act", "--out", str(out)]) == 2
    assert "cannot import module 'nowhere_at_all'" in capsys.readouterr().err

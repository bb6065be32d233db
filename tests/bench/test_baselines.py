"""The arithmetic of ``bench/baselines.py``: the intervals, the Plackett-Luce fit on
known cases, the duplicate-deal seating, and a campaign of a few seconds."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from lab.baselines.agents import AgentUnavailable, make_agent
from lab.baselines.campaign import (
    Outcome,
    deal_seed,
    finishing_order,
    run_campaign,
    seating,
    tables_of,
)
from lab.baselines.report import section, write_section
from maumau.bots import HardBot
from maumau.engine import Rules
from maumau.eval.ratings import bootstrap, percentile_interval, plackett_luce, wilson

# --- intervals -------------------------------------------------------------------------


def test_wilson_interval_of_a_known_case() -> None:
    low, high = wilson(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4)
    assert high == pytest.approx(0.7634, abs=1e-4)
    low, high = wilson(0, 20)
    assert low == 0.0 and high == pytest.approx(0.1611, abs=1e-4)


def test_bootstrap_of_constant_blocks_is_that_constant() -> None:
    assert bootstrap([3.0] * 10, lambda xs: sum(xs) / len(xs), 200) == (3.0, 3.0)


def test_bootstrap_interval_of_a_mean_matches_the_normal_approximation() -> None:
    data = [0.0, 1.0] * 100  # mean 1/2, standard error 0.5 / sqrt(200) = 0.0354
    low, high = bootstrap(data, lambda xs: sum(xs) / len(xs), 2000, seed=3)
    assert low == pytest.approx(0.5 - 1.96 * 0.0354, abs=0.015)
    assert high == pytest.approx(0.5 + 1.96 * 0.0354, abs=0.015)
    assert bootstrap(data, lambda xs: sum(xs) / len(xs), 2000, seed=3) == (low, high)


def test_percentile_interval_takes_the_central_95_percent() -> None:
    assert percentile_interval([float(i) for i in range(1001)]) == (25.0, 975.0)


# --- Plackett-Luce ------------------------------------------------------------------


def test_plackett_luce_of_two_items_is_bradley_terry() -> None:
    # A ahead of B 3 times out of 4: the maximum likelihood odds are 3 to 1
    strengths = plackett_luce([[0, 1]] * 3 + [[1, 0]], 2)
    assert strengths == pytest.approx([0.75, 0.25], abs=1e-8)


def test_plackett_luce_recovers_known_strengths() -> None:
    truth = [0.5, 0.3, 0.15, 0.05]
    rng = random.Random(5)
    rankings = []
    for _ in range(4000):
        left, order = [0, 1, 2, 3], []
        while left:
            pick = rng.choices(left, weights=[truth[i] for i in left])[0]
            order.append(pick)
            left.remove(pick)
        rankings.append(order)
    fitted = plackett_luce(rankings, 4)
    assert sum(fitted) == pytest.approx(1.0)
    assert fitted == pytest.approx(truth, abs=0.02)


def test_plackett_luce_fit_solves_the_likelihood_equations() -> None:
    # subsets of items, as tables of different kinds give
    rankings = [[0, 2, 1], [1, 0], [2, 1, 0], [0, 1], [2, 0], [1, 2, 0], [0, 2]]
    g = plackett_luce(rankings, 3)
    for i in range(3):
        wins = sum(1 for r in rankings if i in r[:-1])
        expected = sum(
            g[i] / sum(g[k] for k in r[j:])
            for r in rankings
            for j in range(len(r) - 1)
            if i in r[j:]
        )
        assert wins == pytest.approx(expected, rel=1e-6)


def test_plackett_luce_refuses_an_item_in_no_ranking() -> None:
    with pytest.raises(ValueError, match=r"items \[2\] are in no ranking"):
        plackett_luce([[0, 1]], 3)


# --- the campaign ---------------------------------------------------------------------


def test_rotations_put_every_entry_in_every_seat_once() -> None:
    for n in (2, 3, 4):
        seats = [seating(n, r) for r in range(n)]
        for seat in range(n):
            assert sorted(rotation[seat] for rotation in seats) == list(range(n))
    assert deal_seed(1, 0, 5) == deal_seed(1, 0, 5) != deal_seed(1, 0, 6)


def test_finishing_order_is_by_score_then_points_then_rounds_won() -> None:
    rng = random.Random(1)
    assert finishing_order([0, 1, 0, 0], [30, 0, 12, 12], [0, 1, 2, 0], rng) == (1, 2, 3, 0)


def test_a_small_campaign_gives_the_same_outcomes_twice() -> None:
    rules = Rules.from_preset("standard")
    tables = tables_of(["random", "easy", "normal"], 2)
    assert tables == [("random", "easy"), ("random", "normal"), ("easy", "normal")]
    first = run_campaign(tables, 2, rules, seed=4)
    assert len(first) == 3 * 2 * 2
    assert first == run_campaign(tables, 2, rules, seed=4)
    for o in first:
        assert sorted(o.order) == [0, 1]
        assert sum(o.score) == pytest.approx(1.0)
        assert o.points[o.order[0]] <= o.points[o.order[1]]
    text = section({"kinds": ["random", "easy", "normal"], "preset": "standard"}, first, 50)
    assert "| random vs easy | 4 |" in text
    assert "### 4 seats" not in text


def test_section_replaces_its_own_part_of_the_page(tmp_path: Path) -> None:
    outcomes = [
        Outcome(1000, b, r, ("random", "easy", "normal", "hard"), s, p, o, 1)
        for b in range(3)
        for r, (s, p, o) in enumerate(
            [
                ((0, 0, 0, 1), (40, 20, 10, 0), (3, 2, 1, 0)),
                ((0, 0, 1, 0), (40, 20, 0, 5), (2, 3, 1, 0)),
            ]
        )
    ]
    page = tmp_path / "benchmark.md"
    page.write_text("# Benchmark\n\n## Speed\n\nfast\n\n## Baselines\n\nold\n\n## Later\n\nx\n")
    write_section(page, {"kinds": ["random"], "preset": "standard"}, outcomes, 50)
    text = page.read_text()
    assert "## Speed\n\nfast" in text and "## Later\n\nx" in text and "old" not in text
    assert text.count("## Baselines") == 1
    row = next(line for line in text.splitlines() if line.startswith("| hard |"))
    assert "| 6 | 50.0% |" in row and "| 1.50 |" in row  # won 3 of 6, first or second


# --- agent kinds ----------------------------------------------------------------------


def test_agent_kinds() -> None:
    bot = make_agent("hard:10", 1)
    assert isinstance(bot, HardBot) and bot.simulations == 10
    assert make_agent("lab-ismcts:5", 1).level == "ismcts"
    with pytest.raises(ValueError, match="unknown agent kind 'genius'"):
        make_agent("genius", 1)
    with pytest.raises(ValueError, match="ismcts:N with N >= 1"):
        make_agent("ismcts", 1)


def test_openspiel_ismcts_says_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without OpenSpiel (the module cannot be imported) the kind names what it needs."""
    import lab.baselines.agents as agents

    def missing(name: str) -> None:
        raise ImportError(f"No module named {name!r}")

    monkeypatch.setattr(agents.importlib, "import_module", missing)
    with pytest.raises(AgentUnavailable, match=r"maumau\.env\.spiel_bot and pyspiel"):
        make_agent("ismcts:100", 1)


def test_a_run_stopped_early_says_so(tmp_path: Path) -> None:
    outcomes = run_campaign([("random", "easy")], 1, Rules.from_preset("standard"), seed=2)
    head = {"kinds": ["random", "easy"], "preset": "standard"}
    assert "stopped before its end" in section(head, outcomes, 20)
    assert "stopped before its end" not in section({**head, "cpu_seconds": 3}, outcomes, 20)


def test_a_resumed_run_plays_only_what_is_missing(tmp_path: Path) -> None:
    import baselines  # bench/baselines.py (bench/ is on the tests' path)
    from lab.baselines.store import read

    out, doc = tmp_path / "run.jsonl", tmp_path / "benchmark.md"
    common = ["--kinds", "random,easy", "--out", str(out), "--doc", str(doc), "--resamples", "20"]
    assert baselines.main([*common, "--deals-2", "1", "--deals-4", "0"]) == 0
    lines = out.read_text().splitlines()
    out.write_text("\n".join(lines[:-2]) + "\n")  # stopped in the middle of block 0
    assert baselines.main([*common, "--deals-2", "2", "--deals-4", "0", "--resume"]) == 0
    _, resumed = read(out)
    fresh = tmp_path / "fresh.jsonl"
    args = ["--kinds", "random,easy", "--out", str(fresh), "--doc", str(doc), "--resamples", "20"]
    assert baselines.main([*args, "--deals-2", "2", "--deals-4", "0"]) == 0
    assert resumed == read(fresh)[1]
    assert len(resumed) == 4
    assert "stopped before its end" not in doc.read_text()  # a run that ended says so
    assert "s of CPU" in doc.read_text()


def test_chosen_tables_go_to_their_own_section(tmp_path: Path) -> None:
    """``--table`` plays only the tables given, ``--section`` names where the figures
    go; the other sections of the page stay as they were, and a bad table is refused."""
    import baselines
    from lab.baselines.store import read

    out, doc = tmp_path / "strength.jsonl", tmp_path / "benchmark.md"
    doc.write_text("# Benchmark\n\n## Speed\n\nfast\n\n## Baselines\n\nold\n")
    args = ["--table", "random/easy", "--deals-2", "2", "--deals-4", "0", "--resamples", "20"]
    title = "Strength: a test"
    args += ["--section", title, "--out", str(out), "--doc", str(doc)]
    assert baselines.main(args) == 0
    _, outcomes = read(out)
    assert {o.kinds for o in outcomes} == {("random", "easy")} and len(outcomes) == 4
    text = doc.read_text()
    assert "## Speed\n\nfast\n" in text and "## Baselines\n\nold\n" in text
    assert f"## {title}\n" in text and "the tables played: `random/easy`." in text
    assert f"--section '{title}'" in text  # the command that writes it again
    assert "| random vs easy | 4 |" in text
    # each kind's thinking time, from the decisions the matches kept
    assert all(sum(o.decisions) > 0 and len(o.seconds) == 2 for o in outcomes)
    assert "### Time per decision" in text and "| random | 2 |" in text
    # a results file from before times were kept reads, and shows no time table
    old = [replace(o, decisions=(), seconds=()) for o in outcomes]
    assert "Time per decision" not in section({"kinds": ["random", "easy"]}, old, 20)
    # each kind's thinking time, from the decisions the matches kept
    assert all(sum(o.decisions) > 0 and len(o.seconds) == 2 for o in outcomes)
    assert "### Time per decision" in text and "| random | 2 |" in text
    # a results file from before times were kept reads, and shows no time table
    old = [replace(o, decisions=(), seconds=()) for o in outcomes]
    assert "Time per decision" not in section({"kinds": ["random", "easy"]}, old, 20)
    with pytest.raises(SystemExit):
        baselines.main(["--table", "random/random", "--doc", str(doc)])
    with pytest.raises(SystemExit):
        baselines.main(["--table", "random/easy/normal", "--doc", str(doc)])


def test_a_policy_enters_the_campaign_as_module_function() -> None:
    """``--kinds`` and ``--table`` take ``module:function`` policies (maumau.eval's)."""
    from maumau.bots import EasyBot

    assert isinstance(make_agent("maumau.bots.simple:EasyBot", 3), EasyBot)
    with pytest.raises(ValueError, match="cannot import module 'nowhere_x'"):
        make_agent("nowhere_x:act", 1)
    rules = Rules.from_preset("standard")
    outcomes = run_campaign([("random", "maumau.bots.simple:EasyBot")], 2, rules, seed=4)
    easy = run_campaign([("random", "easy")], 2, rules, seed=4)
    # the same bot under another name: the same matches
    assert [o.score for o in outcomes] == [o.score for o in easy]
    text = section({"kinds": ["random", "maumau.bots.simple:EasyBot"]}, outcomes, 20)
    assert "`maumau.bots.simple:EasyBot` (a policy, maumau.eval)" in text

"""The report as plain text tables, with the targets."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lab.engine.runs import Budget, Report

#: targets in player actions/s, printed next to the 4-player standard figures
TARGET_PUBLIC_API = 250_000
TARGET_PLAYOUT = 600_000
TARGET_CONFIG = ("standard", 4)


def fmt(value: Any, digits: int = 0) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return "-"
    return f"{value:,.{digits}f}"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
    """A plain text table: the first ``left`` columns left-aligned, the rest right-aligned."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        parts = [
            c.ljust(w) if i < left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *(line(r) for r in rows)])


def target_cell(preset: str, players: int, value: float, target: int) -> str:
    if (preset, players) != TARGET_CONFIG:
        return ""
    verdict = "ok" if value >= target else "MISSED"
    return f">= {target:,} {verdict}"


def print_report(report: Report, budget: Budget) -> None:
    meta = report.meta
    runs = f"{budget.reps} run" + ("s" if budget.reps != 1 else "")
    size = f"{budget.games} games" if budget.games is not None else f"{budget.seconds:g} s"
    print()
    print(
        f"Mau Mau engine benchmark -- Python {meta['python']} on {meta['machine']}, "
        f"{meta['cpus']} CPUs; each figure the median of {runs} of {size}"
    )
    print()
    print("Public API loop (Game.new, legal_actions, apply with a random choice, deal)")
    rows = [
        [
            r["preset"],
            str(r["players"]),
            fmt(r["games_per_s"]),
            fmt(r["rounds_per_s"]),
            fmt(r["actions_per_s"]),
            fmt(r["actions_per_game"], 1),
            fmt(r["actions_per_round"], 1),
            target_cell(r["preset"], r["players"], r["actions_per_s"], TARGET_PUBLIC_API),
        ]
        for r in report.public_api
    ]
    heads = ["preset", "players", "games/s", "rounds/s", "player act/s", "act/game"]
    print(table([*heads, "act/round", "target"], rows, left=2))
    print()
    if report.copy:
        r0 = report.copy[0]
        print(
            f"State copy and legal actions, µs per call over {r0['states']} random "
            f"mid-round states per row (copy(rng, ...) gets one Random(1) made beforehand; "
            f"loop overhead ~{r0['empty_call_us']:.2f} µs not subtracted)"
        )
        rows = [
            [
                r["preset"],
                str(r["players"]),
                fmt(r["mean_log"], 1),
                fmt(r["copy_us"], 2),
                fmt(r["copy_nohist_us"], 2),
                fmt(r["copy_rng_nohist_us"], 2),
                fmt(r["legal_actions_us"], 2),
            ]
            for r in report.copy
        ]
        heads = ["preset", "players", "log len", "copy()", "copy(history=False)"]
        print(table([*heads, "copy(rng, history=False)", "legal_actions()"], rows, left=2))
        print()
    if report.playout:
        print(
            "Random playout (maumau.engine.playout.random_playout), player actions/s with "
            "the copy(rng, history=False) before each playout outside the timing"
        )
        rows = [
            [
                r["preset"],
                str(r["players"]),
                r["start"],
                fmt(r["playouts_per_s"]),
                fmt(r["actions_per_s"]),
                fmt(r["actions_per_playout"], 1),
                fmt(r["copy_us"], 2),
                fmt(r["actions_per_s_with_copy"]),
                target_cell(r["preset"], r["players"], r["actions_per_s"], TARGET_PLAYOUT)
                if r["start"] == "fresh"
                else "",
            ]
            for r in report.playout
        ]
        heads = ["preset", "players", "from", "playouts/s", "player act/s", "act/playout"]
        print(table([*heads, "copy µs", "act/s incl. copy", "target"], rows, left=3))
        print()
    for note in report.notes:
        print(f"note: {note}")
    if report.notes:
        print()
    if report.peers is not None:
        print_peers(report)


def print_peers(report: Report) -> None:
    peers = report.peers or {}
    info = peers.get("info") or {}
    medians = peers.get("medians") or {}
    print(
        f"Peers, run by {info.get('executable', '?')} (Python {info.get('python', '?')}, "
        f"open-spiel {info.get('open_spiel_version', '-')}, "
        f"rlcard {info.get('rlcard_version', '-')}); random legal play, medians"
    )
    names = {
        "openspiel_py": ("OpenSpiel crazy_eights, special cards", "Python loop", 4),
        "openspiel_cpp": ("OpenSpiel crazy_eights, special cards", "C++ evaluate_bots", 4),
        "rlcard_uno_2p": ("RLCard uno", "raw game.step loop", 2),
        "rlcard_uno_4p": ("RLCard uno", "raw game.step loop", 4),
    }
    rows = [
        [
            engine,
            loop,
            str(players),
            fmt(r["games_per_s"]),
            fmt(r["player_actions_per_s"]),
            fmt(r["player_actions_per_game"], 1),
            fmt(r["chance_actions_per_game"], 1),
        ]
        for key, (engine, loop, players) in names.items()
        if (r := medians.get(key))
    ]
    if rows:
        heads = ["engine", "loop", "players", "games/s", "player act/s", "player act/game"]
        print(table([*heads, "chance act/game"], rows, left=2))
    if "openspiel_clone" in medians:
        print(f"OpenSpiel state.clone(): {medians['openspiel_clone']['clone_us']:.2f} µs (4p)")
    for name, error in (peers.get("errors") or {}).items():
        print(f"peer {name} failed: {error}")
    print()
    if report.ratios:
        print(
            "Ratios ours/peer (> 1: ours is faster), each the median of the per-run ratios; "
            "ours = standard preset, measured in turn with the peer runs (not the tables above)"
        )
        rows = [
            [
                r["what"],
                fmt(r["ours"], 2 if r["ours"] < 100 else 0),
                fmt(r["peer"], 2 if r["peer"] < 100 else 0),
                f"{r['ratio']:.2f}x",
                " ".join(f"{x:.2f}" for x in r["per_rep"]),
            ]
            for r in report.ratios
        ]
        print(table(["comparison", "ours", "peer", "ratio", "per run"], rows))
        print()

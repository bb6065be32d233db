"""The ``hard`` bot's worker processes (maumau.server.live.workers) do not outlive their
server: a ``maumau serve`` killed with SIGKILL, which runs no clean-up at all, leaves
no worker behind."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from support.live import Server

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="reads the process tree from /proc"
)


def processes() -> dict[int, tuple[int, str]]:
    """Every live process: pid -> (parent pid, state); zombies count as gone."""
    found: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # it ended while we looked
            continue
        # "pid (name) state ppid ...": the name may hold spaces and parentheses
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if state != "Z":
            found[int(entry.name)] = (int(ppid), state)
    return found


def descendants(root: int) -> dict[int, int]:
    """The live descendants of ``root``: pid -> depth (1: a child)."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in processes().items():
        children.setdefault(ppid, []).append(pid)
    found: dict[int, int] = {}
    frontier = [(root, 0)]
    while frontier:
        pid, depth = frontier.pop()
        for child in children.get(pid, []):
            found[child] = depth + 1
            frontier.append((child, depth + 1))
    return found


def test_workers_exit_when_their_server_is_killed(tmp_path: Path) -> None:
    server = Server(tmp_path / "data")
    # a table of hard bots nobody is at plays on at once (no floor, no pause)
    server.options = ["--unattended-bot-delay-ms", "0", "--bot-workers", "2"]
    server.start()
    try:
        created = server.request(
            "POST",
            "/api/games",
            {
                "name": "Ana",
                "preset": "standard",
                "settings": {"bot_delay_ms": 0, "grace_seconds": 0, "next_round_seconds": 0},
            },
        )
        game_id, token = created["game_id"], created["token"]
        for _ in range(2):
            server.request("POST", f"/api/games/{game_id}/bots", {"level": "hard"}, token)
        server.request("POST", f"/api/games/{game_id}/start", None, token)
        assert server.proc is not None
        pid = server.proc.pid
        # the workers are started by the first hard decision, by the forkserver (the
        # server's child): they are its children
        deadline = time.monotonic() + 120
        while True:
            tree = descendants(pid)
            if any(depth >= 2 for depth in tree.values()):
                break
            assert server.proc.poll() is None, "the server stopped"
            assert time.monotonic() < deadline, f"no worker was started: {tree}"
            time.sleep(0.05)
        server.kill()
    finally:
        server.stop()
    # the forkserver, the workers and the resource tracker: all of them end
    deadline = time.monotonic() + 30
    while left := set(tree) & set(processes()):
        assert time.monotonic() < deadline, f"still running after the server died: {left}"
        time.sleep(0.1)

"""``maumau loadtest`` as the campaign's load: a child process with a ledger of every
acknowledged move."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lab.faults.servers import CampaignError, clock
from lab.paths import ROOT


@dataclass
class LoadSettings:
    games: int
    players: int
    rate: float | None
    procs: int
    spread: str
    seed: int


class Load:
    """``maumau loadtest`` as a child process, with its ledger."""

    def __init__(self, workdir: Path, name: str, urls: list[str], settings: LoadSettings) -> None:
        self.ledger = workdir / f"{name}-ledger.jsonl"
        self.json = workdir / f"{name}-load.json"
        self.log = workdir / f"{name}-load.log"
        self.urls = urls
        self.settings = settings
        self.proc: subprocess.Popen[bytes] | None = None
        self.duration = 0.0
        self.warmup = 1.0
        self.command: list[str] = []

    def start(self, duration: float) -> None:
        s = self.settings
        self.duration = duration
        command = ["maumau", "loadtest"]
        for url in self.urls:
            command += ["--url", url]
        command += ["--games", str(s.games), "--players", str(s.players)]
        command += ["--duration", f"{duration:.0f}", "--warmup", f"{self.warmup:g}"]
        command += ["--rate", f"{s.rate:g}"] if s.rate else ["--closed"]
        command += ["--procs", str(s.procs), "--spread", s.spread, "--seed", str(s.seed)]
        command += ["--ledger", str(self.ledger), "--json", str(self.json)]
        self.command = command
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", *command],
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=ROOT,
                start_new_session=True,  # its own process group, with its client processes
            )

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def acked_bytes(self) -> int:
        try:
            return self.ledger.stat().st_size
        except OSError:
            return 0

    def acked_moves(self) -> int:
        """The moves acknowledged so far (the ledger's lines)."""
        try:
            with self.ledger.open("rb") as ledger:
                return sum(1 for _ in ledger)
        except OSError:
            return 0

    def wait_started(self, timeout: float) -> None:
        """Until the first acknowledged move is in the ledger."""
        deadline = clock() + timeout
        while self.acked_bytes() == 0:
            if not self.running():
                raise CampaignError(f"the load tool stopped before any move; {self.log}")
            if clock() > deadline:
                raise CampaignError(f"no move acknowledged in {timeout:g} s; {self.log}")
            time.sleep(0.1)

    def seconds_left(self, started: float) -> float:
        return started + self.warmup + self.duration - clock()

    def wait(self, timeout: float) -> tuple[int | None, dict[str, Any] | None]:
        assert self.proc is not None
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None, None
        try:
            document: dict[str, Any] = json.loads(self.json.read_text())
        except (OSError, ValueError):
            return code, None
        return code, document

    def stop(self) -> None:
        """Stop the load tool and its client processes (SIGTERM to its process group).
        Moves acknowledged in the last 0.2 s may miss from the ledger: that can only
        hide a loss, never show one that did not happen."""
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        with contextlib.suppress(ProcessLookupError):  # its client processes too
            os.killpg(self.proc.pid, signal.SIGKILL)


def wait_flow(load: Load, since: int, timeout: float) -> float | None:
    """Seconds until the ledger grows past ``since`` bytes (a move was acknowledged
    again), ``None`` if it did not within ``timeout`` or the load ended."""
    began = clock()
    while clock() - began < timeout:
        if load.acked_bytes() > since:
            return clock() - began
        if not load.running():
            return None
        time.sleep(0.05)
    return None

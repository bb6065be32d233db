"""The servers of a cell: our ``maumau serve`` processes and the reference servers, each
a subprocess with its output in a log file."""

from __future__ import annotations

import contextlib
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from lab.matrix.machine import clock
from lab.paths import ROOT
from lab.ports import free_port
from lab.serve import serve_command, stop_server


class BenchError(Exception):
    """A cell could not be run (a server did not start, a tool failed...)."""


def http_status(url: str, timeout: float = 2.0) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            reply.read()
            return int(reply.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except (OSError, ValueError):
        return None


def tail(path: Path, lines: int = 8) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return "\n".join(text[-lines:])


class Service:
    """A server process of ours (a subprocess with its output in a log file)."""

    def __init__(self, name: str, command: list[str], log: Path, cwd: Path) -> None:
        self.name = name
        self.command = command
        self.log = log
        self.cwd = cwd
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self) -> None:
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                self.command, stdout=out, stderr=subprocess.STDOUT, cwd=self.cwd
            )

    def wait_ready(self, url: str, timeout: float = 60.0) -> None:
        """Until ``url`` answers 200."""
        deadline = clock() + timeout
        while http_status(url) != 200:
            if self.proc is None or self.proc.poll() is not None:
                code = None if self.proc is None else self.proc.returncode
                raise BenchError(f"{self.name} exited ({code}) while starting:\n{tail(self.log)}")
            if clock() > deadline:
                raise BenchError(f"{self.name} not ready in {timeout:g} s:\n{tail(self.log)}")
            time.sleep(0.05)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 20 s."""
        if self.proc is not None:
            stop_server(self.proc)


@contextlib.contextmanager
def services(*started: Service) -> Iterator[None]:
    try:
        yield
    finally:
        for service in started:
            service.stop()


def maumau_server(name: str, work: Path, db_args: list[str]) -> tuple[Service, str]:
    """A ``maumau serve`` process (not started yet) and its base URL."""
    port = free_port()
    command = serve_command(port, *db_args)
    url = f"http://127.0.0.1:{port}"
    return Service(name, command, work / f"{name}.log", ROOT), url

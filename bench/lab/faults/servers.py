"""The campaign's ``maumau serve`` processes (killed and started again on the same port
and data), and the HTTP requests it makes to them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lab.paths import ROOT
from lab.ports import free_port
from lab.serve import serve_command, stop_server

Say = Callable[[str], None]
clock = time.monotonic


class CampaignError(Exception):
    """The campaign could not go on (a server did not start, the load tool stopped...);
    PostgreSQL failing is a :class:`lab.postgres.ClusterError`."""


def http(
    method: str, url: str, body: Any = None, token: str | None = None, timeout: float = 10.0
) -> tuple[int | None, Any]:
    """One request; (status, decoded JSON body); status ``None`` when nothing answered."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            raw = reply.read()
            return reply.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as exc:
        raw = exc.read()
        try:
            return exc.code, json.loads(raw) if raw else None
        except ValueError:
            return exc.code, None
    except (OSError, ValueError):
        return None, None


def must(status: int | None, reply: Any, what: str) -> Any:
    if status is None or not 200 <= status < 300:
        raise CampaignError(f"{what}: HTTP {status} {reply}")
    return reply


class Server:
    """One ``maumau serve`` process, restartable on the same port and data."""

    def __init__(self, name: str, workdir: Path, db_args: list[str]) -> None:
        self.name = name
        self.port = free_port()
        self.data_dir = workdir / f"data-{name}"
        self.log = workdir / f"server-{name}.log"
        self.db_args = db_args
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        return None if self.proc is None else self.proc.pid

    def start(self) -> None:
        command = serve_command(self.port, "--data-dir", str(self.data_dir), *self.db_args)
        with open(self.log, "ab") as out:
            out.write(f"\n=== start {self.starts + 1} at {time.time():.3f}\n".encode())
            out.flush()
            self.proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
        self.starts += 1

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def wait_ready(self, timeout: float) -> None:
        """Until ``/api/health`` answers 200 (the store is open, unfinished games resumed)."""
        deadline = clock() + timeout
        while True:
            status, _ = http("GET", self.url + "/api/health", timeout=2.0)
            if status == 200:
                return
            if not self.alive():
                code = None if self.proc is None else self.proc.returncode
                raise CampaignError(
                    f"server {self.name} exited ({code}) while starting; {self.log}"
                )
            if clock() > deadline:
                raise CampaignError(f"server {self.name} not ready in {timeout:g} s; {self.log}")
            time.sleep(0.05)

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> int | None:
        """SIGTERM (a graceful stop); the exit code."""
        return None if self.proc is None else stop_server(self.proc)

    def log_problems(self) -> dict[str, Any]:
        """Tracebacks and ERROR lines in the server's output (over all its starts)."""
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return {"tracebacks": 0, "errors": 0, "first": []}
        lines = text.splitlines()
        errors = [line for line in lines if line.startswith(("ERROR", "CRITICAL"))]
        return {
            "tracebacks": text.count("Traceback (most recent call last)"),
            "errors": len(errors),
            "first": errors[:5],
        }


def health(server: Server) -> tuple[int | None, Any]:
    return http("GET", server.url + "/api/health", timeout=3.0)

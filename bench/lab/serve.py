"""The servers the scripts start: the ``maumau serve`` command line, and how a server
process is stopped."""

from __future__ import annotations

import subprocess
import sys

#: the per-address limits the load tool needs (docs/performance.md, "The load tool"): it
#: opens every table, request and WebSocket (about 1,000) from 127.0.0.1
SERVE_LIMITS = (
    *("--tables-per-minute", "100000", "--messages-per-second", "1000"),
    *("--connections-per-address", "100000", "--http-connections-per-address", "100000"),
    *("--connections-per-minute", "1000000"),
    *("--live-tables-per-address", "100000"),
)


def serve_command(port: int, *args: str) -> list[str]:
    """``python -m maumau serve`` on ``port`` of 127.0.0.1 with ``args`` (its data),
    the load tool's limits and warnings only (the pid started is the server itself)."""
    command = [sys.executable, "-m", "maumau", "serve", "--host", "127.0.0.1"]
    return [*command, "--port", str(port), *args, *SERVE_LIMITS, "--log-level", "warning"]


def stop_server(proc: subprocess.Popen[bytes]) -> int | None:
    """SIGTERM (a graceful stop), SIGKILL after 20 s; the exit code."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return proc.returncode

"""A real game server for a browser test: ``maumau serve`` on a free port."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from lab.serve import stop_server

ROOT = Path(__file__).resolve().parents[3]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.contextmanager
def serving(data: Path, *options: str, port: int | None = None) -> Iterator[str]:
    """``maumau serve`` on a free port (or ``port``: the same origin again, after a
    server on it stopped) and the data directory ``data``, with more ``options``, until
    the block ends; its base URL."""
    port = port or _free_port()
    command = [sys.executable, "-m", "maumau", "serve", "--port", str(port)]
    command += ["--data-dir", str(data), "--log-level", "warning", *options]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL)
    # (generous: the suite's workers and other browsers may share the cores meanwhile)
    url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + 120
    try:
        while True:
            try:
                urllib.request.urlopen(url + "/api/health", timeout=1).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    why = f"exit code {proc.poll()}" if proc.poll() is not None else "no answer"
                    raise RuntimeError(f"the game server did not start: {why}") from None
                time.sleep(0.1)
        yield url
    finally:
        stop_server(proc)

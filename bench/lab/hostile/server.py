"""The live campaign's server: ``maumau serve`` on a free port with a fresh data
directory, and what it logged."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from lab.paths import ROOT
from lab.ports import free_port

LOG_RECORD = re.compile(r"(DEBUG|INFO|WARNING|ERROR|CRITICAL):")
#: how uvicorn's websockets-sansio protocol logs a text frame that is not UTF-8 (as an
#: ERROR, with a traceback, although it is the client's fault; it then closes the
#: connection with 1007, as RFC 6455 says)
UVICORN_UTF8 = "Invalid UTF-8 sequence received from client."


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int
    data_dir: Path
    out_path: Path
    err_path: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> int | None:
        """Stop the server this script started (its own process group only)."""
        if self.process.poll() is None:
            # as a service manager stops it: SIGTERM to ``uv run``, which passes it on
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        return self.process.returncode

    def log_records(self) -> list[str]:
        """The server's output as log records (a record's traceback lines with it)."""
        records: list[str] = []
        for path in (self.out_path, self.err_path):
            lines: list[str] = []
            for line in path.read_text(errors="replace").splitlines():
                if LOG_RECORD.match(line) or not lines:
                    if lines:
                        records.append("\n".join(lines))
                    lines = [line]
                else:
                    lines.append(line)
            if lines:
                records.append("\n".join(lines))
        return records

    def bad_records(self) -> tuple[list[str], list[str]]:
        """Records with a traceback or at ERROR/CRITICAL: (uvicorn's own report of a
        text frame that is not UTF-8, every other one)."""
        utf8, other = [], []
        for record in self.log_records():
            if "Traceback" not in record and not record.startswith(("ERROR", "CRITICAL")):
                continue
            lines = record.splitlines()
            if UVICORN_UTF8 in lines[0] and lines[-1].startswith("UnicodeDecodeError"):
                utf8.append(record)
            else:
                other.append(record[:2000])
        return utf8, other

    def warnings(self) -> Counter[str]:
        found: Counter[str] = Counter()
        for path in (self.out_path, self.err_path):
            for line in path.read_text(errors="replace").splitlines():
                if line.startswith("WARNING"):
                    found[re.sub(r"\d+", "N", line)[:120]] += 1
        return found


#: the limits the attacks (``lab.hostile.attacks``) wait for are short here: the hello
#: deadline (the WebSocket part's connections that never say hello send at most 300
#: messages, in well under a second), the request headers' deadline; and an address may
#: hold 10 live tables (the bot tables' attack is refused within its 20 tries; the
#: campaign's own address holds about 5)
HELLO_SECONDS = 5.0
HEADER_SECONDS = 3.0
LIVE_TABLES_PER_ADDRESS = 10


def start_server(work: Path) -> Server:
    port = free_port()
    data_dir = work / "data"
    out_path, err_path = work / "server.out", work / "server.err"
    command = [
        "uv", "run", "--quiet", "maumau", "serve", "--data-dir", str(data_dir),
        "--port", str(port), "--tables-per-minute", "100000", "--messages-per-second", "100000",
        "--hello-seconds", str(HELLO_SECONDS), "--header-seconds", str(HEADER_SECONDS),
        "--live-tables-per-address", str(LIVE_TABLES_PER_ADDRESS),
    ]  # fmt: skip
    with out_path.open("wb") as out, err_path.open("wb") as err:
        process = subprocess.Popen(
            command, stdout=out, stderr=err, cwd=ROOT, start_new_session=True
        )
    server = Server(process, port, data_dir, out_path, err_path)
    import httpx

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if not server.alive():
            raise RuntimeError(f"the server exited: {err_path.read_text()[-2000:]}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{server.base}/api/health", timeout=2).status_code == 200:
                return server
        time.sleep(0.2)
    server.stop()
    raise RuntimeError("the server did not answer /api/health within 60 s")

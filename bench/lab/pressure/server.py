"""The tree under test: its Python, its database seeded with the long game, and its
``maumau serve`` started as a service would be (a file-descriptor limit of 1024), on
its data directory's SQLite file or on a database URL (several processes may share a
PostgreSQL database and one log file: :mod:`lab.pressure.fleet`)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import signal
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lab.paths import ROOT
from lab.ports import free_port

#: RLIMIT_NOFILE of the server: systemd's default for a service (soft 1024, hard
#: 524288); the hard limit is lowered to what this process may set if that is less
NOFILE_SOFT = 1024
NOFILE_HARD = 524288
#: requests to the server under test only (no proxy from the environment)
NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


#: the last line of a traceback: the exception (``sqlalchemy.exc.TimeoutError: ...``)
EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b")


class ServerError(Exception):
    """The server under test could not be seeded or started."""


def tree_python(source: Path) -> list[str]:
    """The command that runs the Python of the tree at ``source``: its ``.venv`` when
    there is one (``uv sync`` made it), else ``uv run --project``."""
    venv = source / ".venv" / "bin" / "python"
    if venv.exists():
        return [str(venv)]
    return ["uv", "run", "--quiet", "--project", str(source), "python"]


def tree_revision(source: Path) -> str:
    """The tree's commit (short), with ``+changes`` when its working tree differs."""
    try:
        rev = subprocess.run(
            ["git", "-C", str(source), "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        dirty = subprocess.run(
            ["git", "-C", str(source), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return rev + ("+changes" if dirty else "")


def seed(source: Path, data_dir: Path, game_seed: int, options: dict[str, Any] | None,
         seats: int | None, database_url: str | None = None) -> dict[str, Any]:  # fmt: skip
    """Write the long finished game into ``data_dir``'s database (or the one at
    ``database_url``) with the tree's own store (``lab.pressure.seed`` run by the tree's
    Python); what it printed."""
    data_dir.mkdir(parents=True, exist_ok=True)
    where = ["--url", database_url] if database_url else ["--db", str(data_dir / "maumau.sqlite3")]
    command = [
        *tree_python(source), "-m", "lab.pressure.seed", *where, "--seed", str(game_seed),
    ]  # fmt: skip
    if options is not None:
        command += ["--options", json.dumps(options)]
    if seats is not None:
        command += ["--seats", str(seats)]
    done = subprocess.run(command, cwd=ROOT / "bench", capture_output=True, text=True)
    if done.returncode != 0:
        raise ServerError(f"seeding failed ({done.returncode}): {done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def nofile_given() -> tuple[int, int]:
    """The open-file limit the server is started with: soft 1024, hard 524288 where
    this process may raise its hard limit that far, else its hard limit as it is."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < NOFILE_HARD:
        try:  # (raising this process's own hard limit changes nothing else)
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, NOFILE_HARD))
        except (ValueError, OSError):
            return NOFILE_SOFT, hard
    return NOFILE_SOFT, NOFILE_HARD


def _limit_files() -> None:
    """In the server's child process, before it runs (see :func:`nofile_given`)."""
    resource.setrlimit(resource.RLIMIT_NOFILE, nofile_given())


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def alive(self) -> bool:
        return self.process.poll() is None

    def nofile(self) -> tuple[int, int] | None:
        """The server process's (soft, hard) open-file limit, as the kernel has it."""
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{self.process.pid}/limits").read_text().splitlines():
                if line.startswith("Max open files"):
                    soft, hard = line.split()[3:5]
                    return int(soft), int(hard)
        return None

    def cpu_seconds(self) -> float | None:
        """User + system CPU time of the server process so far."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mb(self) -> float | None:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
        return None

    def open_files(self) -> int | None:
        try:
            return len(os.listdir(f"/proc/{self.process.pid}/fd"))
        except OSError:
            return None

    def stop(self) -> int | None:
        """SIGTERM (a graceful stop), SIGKILL to its own process group after 20 s."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        return self.process.returncode

    def log_length(self) -> int:
        """How many lines its output has so far."""
        return len(self.log_lines())

    def log_lines(self) -> list[str]:
        try:
            return self.log.read_text(errors="replace").splitlines()
        except OSError:
            return []

    def log_problems(self, start: int = 0, end: int | None = None) -> dict[str, Any]:
        """Tracebacks and ERROR/CRITICAL lines in its output (lines ``start`` to
        ``end``): the distinct lines and the exception each traceback ended in
        (numbers blanked, at most 160 characters)."""
        lines = self.log_lines()[start:end]
        bad = [line for line in lines if line.startswith(("ERROR", "CRITICAL"))]
        warnings = [line for line in lines if line.startswith("WARNING")]
        ends = [line for line in lines if EXCEPTION_LINE.match(line)]
        return {
            "tracebacks": sum(1 for line in lines if line.startswith("Traceback")),
            "errors": len(bad),
            "warnings": len(warnings),
            "distinct": _distinct(bad + warnings),
            "exceptions": _distinct(ends),
        }


def _distinct(lines: list[str]) -> list[tuple[str, int]]:
    seen: dict[str, int] = {}
    for line in lines:
        key = re.sub(r"\d+", "N", line)[:160]
        seen[key] = seen.get(key, 0) + 1
    return sorted(seen.items(), key=lambda kv: -kv[1])[:12]


def start(source: Path, data_dir: Path, log: Path, timeout: float = 90.0,
          database_url: str | None = None) -> Server:  # fmt: skip
    """``maumau serve`` of the tree at ``source`` on a free port of 127.0.0.1 with its
    default limits (on ``database_url`` if given), until ``/api/health`` answers 200.
    Its output goes to the end of ``log``, which other servers may share."""
    port = free_port()
    command = [
        *tree_python(source), "-m", "maumau", "serve", "--host", "127.0.0.1",
        "--port", str(port), "--data-dir", str(data_dir), "--log-level", "warning",
    ]  # fmt: skip
    if database_url:
        command += ["--database-url", database_url]
    with log.open("ab") as out:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, cwd=source,
            preexec_fn=_limit_files, start_new_session=True,
        )  # fmt: skip
    server = Server(process, port, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not server.alive():
            raise ServerError(f"the server exited ({process.returncode}): {log_tail(log)}")
        with (
            contextlib.suppress(OSError, ValueError),
            NO_PROXY.open(server.url + "/api/health", timeout=2) as reply,
        ):
            if reply.status == 200:
                return server
        time.sleep(0.2)
    server.stop()
    raise ServerError(f"the server did not answer /api/health in {timeout:g} s: {log_tail(log)}")


def log_tail(log: Path) -> str:
    try:
        return log.read_text(errors="replace")[-2000:]
    except OSError:
        return ""

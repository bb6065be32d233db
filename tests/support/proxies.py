"""Real reverse proxies in front of ``maumau serve`` for the tests: nginx and Caddy
running the recipes shipped in ``deploy/``, as they are, with only their ports,
addresses and log paths changed (``lab.nginx.render`` fails when a file no longer has
what it changes, so the tests cannot drift from the recipe).

- :class:`Nginx` (``deploy/nginx/maumau.conf``, or ``maumau-two.conf`` with two game
  servers), :class:`Caddy` (``deploy/caddy/Caddyfile``): ``.start()``, ``.stop()``,
  ``.url``, ``.ws_url``, ``.request()`` as :class:`support.live.Server`'s, so that
  ``Human``, ``set_up`` and ``check_finished`` play through them.
- :func:`need` skips a test, with the reason, when the proxy's program is missing.
- :func:`request_from` sends a request from a given loopback address (127.0.0.2, ...):
  through a proxy, clients with different addresses.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from lab import nginx
from lab.nginx import render
from lab.ports import free_port
from lab.serve import stop_server
from support.live import Server
from support.paths import ROOT

DEPLOY = ROOT / "deploy"


def need(program: str) -> str:
    """The path of ``program`` (``nginx``, ``caddy``); the test is skipped if it is
    not installed."""
    path = shutil.which(program) or shutil.which(program, path="/usr/sbin:/usr/bin")
    if path is None:
        pytest.skip(f"{program} is not installed (apt-get install -y {program})")
    return path


def request_from(
    source: str,
    url: str,
    method: str,
    path: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """``method path`` at ``url`` (``http://127.0.0.1:PORT``) from the local address
    ``source``: the status and the JSON body (or ``None``)."""
    host, _, port = url.removeprefix("http://").partition(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10, source_address=(source, 0))
    try:
        data = None if body is None else json.dumps(body).encode()
        sent = {"Content-Type": "application/json"} | (headers or {})
        conn.request(method, path, data, sent)
        reply = conn.getresponse()
        text = reply.read()
        return reply.status, json.loads(text) if text else None
    finally:
        conn.close()


class Front:
    """A proxy process on a free port of 127.0.0.1, in front of game servers."""

    #: a name for messages
    name = "proxy"

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.access_log = workdir / "access.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.output = workdir / "output.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    request = Server.request  # (it only needs .url)

    def command(self) -> list[str]:
        raise NotImplementedError

    def environment(self) -> dict[str, str]:
        return dict(os.environ)

    def start(self, path: str = "/api/health") -> None:
        """Start it, and wait until ``path`` answers 200 through it."""
        with self.output.open("wb") as output:
            self.proc = subprocess.Popen(
                self.command(),
                stdout=output,
                stderr=subprocess.STDOUT,
                env=self.environment(),
                cwd=self.workdir,
            )
        deadline = time.monotonic() + 30
        while True:
            try:
                status, _ = request_from("127.0.0.1", self.url, "GET", path)
                if status == 200:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{self.name} did not start: {self.output.read_text()[-2000:]}")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.proc is not None:
            stop_server(self.proc)

    def __enter__(self) -> Front:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class Nginx(Front):
    """nginx with ``deploy/nginx/RECIPE`` (``maumau.conf``: one upstream port;
    ``maumau-two.conf``: two), inside a minimal main configuration as Debian's
    ``nginx.conf`` includes it (bench/lab/nginx.py).  ``changes``: more replacements
    (a benchmark's raised ``limit_conn``)."""

    name = "nginx"

    def __init__(
        self,
        workdir: Path,
        upstreams: list[int],
        recipe: str = "maumau.conf",
        changes: dict[str, str] | None = None,
    ) -> None:
        super().__init__(workdir)
        self.binary = need("nginx")
        text = nginx.site(recipe, self.port, upstreams, self.access_log, changes)
        nginx.configure(workdir, text)

    def command(self) -> list[str]:
        return nginx.command(self.binary, self.workdir)

    def upstreams_used(self) -> list[str]:
        """The ``upstream=`` of each access log line (which game server served it)."""
        if not self.access_log.exists():
            return []
        return [
            line.rpartition("upstream=")[2].strip()
            for line in self.access_log.read_text().splitlines()
        ]


class Caddy(Front):
    """Caddy with ``deploy/caddy/Caddyfile``, serving plain HTTP on its port (the
    recipe's comment: the local variant), its admin API on another free port."""

    name = "caddy"

    def __init__(self, workdir: Path, upstream: int) -> None:
        super().__init__(workdir)
        self.binary = need("caddy")
        self.admin_port = free_port()
        text = render(
            (DEPLOY / "caddy" / "Caddyfile").read_text(),
            {
                "\ncards.example.org {": f"\nhttp://127.0.0.1:{self.port} {{",
                "admin localhost:2019": f"admin 127.0.0.1:{self.admin_port}",
                "reverse_proxy 127.0.0.1:8000": f"reverse_proxy 127.0.0.1:{upstream}",
                "/var/log/caddy/maumau.access.log": str(self.access_log),
            },
        )
        (workdir / "Caddyfile").write_text(text)

    def environment(self) -> dict[str, str]:
        # its data and configuration (certificates, autosave) in the work directory
        home = str(self.workdir)
        return dict(os.environ, HOME=home, XDG_DATA_HOME=home, XDG_CONFIG_HOME=home)

    def command(self) -> list[str]:
        conf = str(self.workdir / "Caddyfile")
        return [self.binary, "run", "--config", conf, "--adapter", "caddyfile"]

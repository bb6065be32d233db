"""nginx running a recipe of ``deploy/nginx/`` as it is shipped, for the tests and the
benchmarks: only the ``listen`` address, the upstreams' ports and the access log's path
are changed (and whatever a caller asks for, such as a benchmark's raised connection
limit), inside a minimal main configuration as Debian's ``nginx.conf`` includes a site.
:func:`render` fails when the recipe no longer has what it changes, so a test cannot
drift from the recipe."""

from __future__ import annotations

import os
from pathlib import Path

from lab.paths import ROOT

RECIPES = ROOT / "deploy" / "nginx"
#: the first upstream's port in each recipe (the others follow it): one process on
#: 8000; two on 8001 and 8002, as the systemd units maumau@8001 and maumau@8002
FIRST_UPSTREAM = {"maumau.conf": 8000, "maumau-two.conf": 8001}


def render(text: str, changes: dict[str, str]) -> str:
    """``text`` with each key replaced by its value; each must occur exactly once."""
    for old, new in changes.items():
        count = text.count(old)
        if count != 1:
            raise ValueError(f"the recipe has {old!r} {count} times, not once")
        text = text.replace(old, new)
    return text


def site(
    recipe: str,
    port: int,
    upstreams: list[int],
    access_log: Path,
    changes: dict[str, str] | None = None,
) -> str:
    """``deploy/nginx/RECIPE`` listening on ``port`` of 127.0.0.1, in front of the
    game servers on ``upstreams`` (ports of 127.0.0.1)."""
    ours = {
        "listen 80;": f"listen 127.0.0.1:{port};",
        "/var/log/nginx/maumau.access.log": str(access_log),
    }
    for i, upstream in enumerate(upstreams):
        ours[f"server 127.0.0.1:{FIRST_UPSTREAM[recipe] + i}"] = f"server 127.0.0.1:{upstream}"
    return render((RECIPES / recipe).read_text(), ours | (changes or {}))


def configure(workdir: Path, site_text: str, workers: str = "1") -> Path:
    """Write the site and a main configuration around it (pid, logs and temporary
    files in ``workdir``; ``workers``: ``worker_processes``, Debian's is ``auto``);
    the main configuration's path."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "maumau.conf").write_text(site_text)
    temp = workdir / "temp"
    temp.mkdir(exist_ok=True)
    user = "user root;\n" if os.geteuid() == 0 else ""  # (workers as root: the temp files)
    paths = "".join(
        f"    {kind}_temp_path {temp / kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    main = workdir / "nginx.conf"
    main.write_text(
        f"{user}worker_processes {workers};\nworker_rlimit_nofile 65536;\n"
        f"pid {workdir / 'nginx.pid'};\nerror_log {workdir / 'error.log'} warn;\n"
        "events { worker_connections 16384; }\n"
        f"http {{\n{paths}    include {workdir / 'maumau.conf'};\n}}\n"
    )
    return main


def command(binary: str, workdir: Path) -> list[str]:
    """nginx in the foreground on :func:`configure`'s configuration in ``workdir``."""
    conf, error_log = str(workdir / "nginx.conf"), str(workdir / "error.log")
    return [binary, "-p", f"{workdir}/", "-e", error_log, "-c", conf, "-g", "daemon off;"]

"""The installable app's shell: the service worker at ``/sw.js``.

The worker (``web/sw.js``) keeps the browser client's files (the page, its styles,
modules, languages and icons: the *shell*) in a cache, so that the installed app opens
at once and, when the server cannot be reached, shows its own offline state instead
of the browser's error page.  It never keeps anything else: the API, the WebSocket,
records and replays always go to the network.

Besides the files in ``web/``, the shell holds documents the server writes at start
from the engine: ``/options.json``, the option keys, their ranges and defaults and the
presets (:func:`maumau.engine.options.catalogue`), so that the client offers exactly
the engine's options without a copy of its own, and still opens offline.

The server serves the worker with two constants in front of it: ``VERSION``, a hash
of every file of the client, and ``SHELL``, the paths it caches.  A release that
changes any file changes the worker's bytes, which is what makes browsers install the
new worker; it fetches the new shell into a cache of the new version and deletes the
old ones, so no installed app stays on an old shell.  Every file of the client is
served with its release's version in the ``Maumau-Shell-Version`` header, and the worker
refuses to install from files of another release (it is tried again on the next visit).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import Response
from fastapi.staticfiles import StaticFiles
from starlette.staticfiles import PathLike
from starlette.types import Scope

from maumau.engine.options import catalogue

#: the worker's source in the web directory (served through :func:`worker`, not as is)
WORKER = "sw.js"
#: the header naming the release of a file of the client: the worker keeps a file only
#: from its own release (several server processes of two releases may answer during
#: a rolling upgrade, and a cache of one version must not hold files of another)
VERSION_HEADER = "maumau-shell-version"

router = APIRouter()

#: the documents of the shell written from the engine, by path
OPTIONS_PATH = "/options.json"


def documents() -> dict[str, bytes]:
    """The shell's documents written from the engine, by path."""
    return {OPTIONS_PATH: json.dumps(catalogue(), separators=(",", ":")).encode()}


@dataclass(frozen=True)
class Shell:
    """The shell of one release of the client."""

    #: a hash of every file of the client (its names and bytes)
    version: str
    #: the paths the worker caches: ``/`` (the page) and every other file
    files: tuple[str, ...]
    #: the worker as served: the constants, then ``web/sw.js``
    script: bytes
    #: the documents written from the engine (:func:`documents`), by path
    documents: dict[str, bytes]

    @classmethod
    def of(cls, web_dir: Path) -> Shell:
        """The shell of the client in ``web_dir`` (its files are read once, here)."""
        names = sorted(
            path.relative_to(web_dir).as_posix()
            for path in web_dir.rglob("*")
            if path.is_file() and not path.name.startswith(".")
        )
        written = documents()
        digest = hashlib.sha256()
        for name, data in [*((n, (web_dir / n).read_bytes()) for n in names), *written.items()]:
            digest.update(f"{name}\0{len(data)}\0".encode())
            digest.update(data)
        version = digest.hexdigest()[:16]
        files = ("/", *(f"/{name}" for name in names if name not in ("index.html", WORKER)))
        files += tuple(written)
        head = f"const VERSION = {json.dumps(version)};\nconst SHELL = {json.dumps(files)};\n"
        source = (web_dir / WORKER).read_text("utf-8")
        return cls(version, files, (head + source).encode(), written)


@router.get("/sw.js", include_in_schema=False)
async def worker(request: Request) -> Response:
    """The service worker, at the root so that its scope is the whole site (``/`` and
    every invite link ``/g/<id>``).  Browsers check it for updates on every visit;
    ``no-cache`` makes every such check reach the server."""
    shell: Shell = request.app.state.shell
    return Response(
        shell.script, media_type="text/javascript", headers={"cache-control": "no-cache"}
    )


@router.get(OPTIONS_PATH, include_in_schema=False)
async def options(request: Request) -> Response:
    """The engine's options and presets (docs/protocol.md), a file of the shell: named
    for its release and answered with a 304 when the client has it already."""
    shell: Shell = request.app.state.shell
    etag = f'"{shell.version}"'  # the document changes only with the release
    headers = {VERSION_HEADER: shell.version, "etag": etag}
    if etag in (tag.strip() for tag in request.headers.get("if-none-match", "").split(",")):
        return Response(status_code=304, headers=headers)
    return Response(shell.documents[OPTIONS_PATH], media_type="application/json", headers=headers)


class ShellFiles(StaticFiles):
    """The client's files, each reply (also a 304) naming the release it is of."""

    def __init__(self, shell: Shell, directory: Path) -> None:
        super().__init__(directory=directory, html=True)
        self.shell = shell

    def file_response(
        self,
        full_path: PathLike,
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers[VERSION_HEADER] = self.shell.version
        return response

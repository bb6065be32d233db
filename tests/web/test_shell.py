"""The installable app's files as the server serves them: the service worker at the
root with a JavaScript type and a version that follows the client's files, the
manifest as ``application/manifest+json``, the icons as PNG, and Cache-Control that
keeps no old shell (``no-cache``) and no API answer (``no-store``)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from maumau.engine import OPTION_KEYS, PRESETS, BadOption, Rules
from maumau.engine.options import catalogue
from maumau.server.app import create_app
from maumau.server.config import WEB_DIR, ServerConfig
from maumau.server.http.headers import POLICY
from maumau.server.http.shell import Shell
from support.serverkit import create_table, make_client


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with make_client(tmp_path_factory.mktemp("data")) as client:
        yield client


def constants(script: str) -> tuple[str, list[str]]:
    """The VERSION and SHELL the server put in front of the worker."""
    version = re.search(r'^const VERSION = "([0-9a-f]+)";$', script, re.M)
    shell = re.search(r"^const SHELL = (\[.*\]);$", script, re.M)
    assert version and shell, script[:200]
    return version[1], json.loads(shell[1])


def test_the_worker_is_served_at_the_root_as_javascript(client: TestClient) -> None:
    reply = client.get("/sw.js")
    assert reply.status_code == 200
    assert reply.headers["content-type"].split(";")[0] == "text/javascript"
    assert reply.headers["cache-control"] == "no-cache"
    assert "content-security-policy" in reply.headers
    version, _ = constants(reply.text)
    assert len(version) == 16
    assert reply.text.endswith((WEB_DIR / "sw.js").read_text("utf-8"))
    assert 'addEventListener("fetch"' in reply.text


def test_the_shell_is_every_file_of_the_client_and_nothing_of_the_api(
    client: TestClient,
) -> None:
    _, files = constants(client.get("/sw.js").text)
    on_disk = {
        "/" + p.relative_to(WEB_DIR).as_posix()
        for p in WEB_DIR.rglob("*")
        if p.is_file() and not p.name.startswith(".")
    }
    # and the documents written from the engine at start
    assert set(files) == on_disk - {"/index.html", "/sw.js"} | {"/", "/options.json"}
    for needed in ("/", "/style.css", "/js/main.js", "/lang/sv.json", "/favicon.svg"):
        assert needed in files
    assert "/manifest.webmanifest" in files and "/icons/maskable-512.png" in files
    assert not [f for f in files if f.startswith(("/api/", "/ws/", "/g/", "/metrics"))]
    for path in files:  # every one of them is there: the worker's install needs them all
        assert client.get(path).status_code == 200, path


def test_every_file_of_the_shell_names_its_release(client: TestClient) -> None:
    """The worker keeps a file only from its own release: each reply (a 304 too) says
    which one it is of."""
    version, files = constants(client.get("/sw.js").text)
    for path in files:
        reply = client.get(path)
        assert reply.headers["maumau-shell-version"] == version, path
        again = client.get(path, headers={"if-none-match": reply.headers["etag"]})
        assert again.status_code == 304, path
        assert again.headers["maumau-shell-version"] == version, path
    assert "maumau-shell-version" not in client.get("/api/health").headers


def test_the_version_follows_every_file_of_the_client(tmp_path: Path) -> None:
    web = tmp_path / "web"
    shutil.copytree(WEB_DIR, web)
    first = Shell.of(web)
    assert Shell.of(web) == first  # the same files, the same worker
    (web / "lang" / "da.json").write_text((web / "lang" / "da.json").read_text() + " ")
    changed = Shell.of(web)
    assert changed.version != first.version
    assert changed.script != first.script  # what makes browsers install the new worker
    (web / "js" / "new.js").write_text("export {};\n")
    added = Shell.of(web)
    assert added.version not in (first.version, changed.version)
    assert "/js/new.js" in added.files


def test_the_worker_version_is_the_served_client(tmp_path: Path) -> None:
    config = ServerConfig(data_dir=tmp_path / "data")
    with TestClient(create_app(config)) as client:
        version, _ = constants(client.get("/sw.js").text)
    assert version == Shell.of(WEB_DIR).version


def test_the_manifest(client: TestClient) -> None:
    reply = client.get("/manifest.webmanifest")
    assert reply.status_code == 200
    assert reply.headers["content-type"].split(";")[0] == "application/manifest+json"
    manifest = reply.json()
    assert manifest["name"] == manifest["short_name"] == "Mau Mau"
    assert manifest["start_url"] == manifest["scope"] == manifest["id"] == "/"
    assert manifest["display"] == "standalone"
    css = (WEB_DIR / "style.css").read_text("utf-8")
    felt = re.search(r"--felt: (#[0-9a-f]{6});", css)
    assert felt and manifest["theme_color"] == manifest["background_color"] == felt[1]
    html = client.get("/").text
    assert '<link rel="manifest" href="/manifest.webmanifest">' in html
    assert f'<meta name="theme-color" content="{felt[1]}">' in html
    assert '<link rel="icon" href="/favicon.svg"' in html
    purposes = {icon["purpose"] for icon in manifest["icons"]}
    assert purposes == {"any", "maskable"}


def test_the_icons_are_png_of_their_size(client: TestClient) -> None:
    manifest = client.get("/manifest.webmanifest").json()
    for icon in [*manifest["icons"], {"src": "/icons/apple-touch-icon.png", "sizes": "180x180"}]:
        reply = client.get(icon["src"])
        assert reply.status_code == 200, icon
        assert reply.headers["content-type"] == "image/png"
        width = int.from_bytes(reply.content[16:20], "big")
        height = int.from_bytes(reply.content[20:24], "big")
        assert f"{width}x{height}" == icon["sizes"], icon


def test_files_are_asked_for_again_and_the_api_is_never_stored(client: TestClient) -> None:
    game_id, _ = create_table(client)
    pages = ("/", "/js/main.js", "/lang/en.json", "/manifest.webmanifest", f"/g/{game_id}")
    for path in (*pages, "/options.json"):
        reply = client.get(path)
        assert reply.headers["cache-control"] == "no-cache", path
    etag = client.get("/js/main.js").headers["etag"]
    again = client.get("/js/main.js", headers={"if-none-match": etag})
    assert again.status_code == 304  # no-cache costs a revalidation, not the file
    for path in ("/api/health", f"/api/games/{game_id}"):
        assert client.get(path).headers["cache-control"] == "no-store", path


def test_the_policy_allows_the_worker_and_the_manifest_from_this_origin_only() -> None:
    rules = dict(d.strip().split(" ", 1) for d in POLICY.split(";"))
    assert rules["worker-src"] == "'self'"
    assert rules["manifest-src"] == "'self'"
    assert rules["default-src"] == "'none'"


def test_the_options_document_is_the_engines_catalogue(client: TestClient) -> None:
    """The client's options, ranges, defaults and presets come from the engine: the
    document is :func:`catalogue` as it is, and it follows the engine's lists."""
    reply = client.get("/options.json")
    assert reply.status_code == 200
    assert reply.headers["content-type"] == "application/json"
    served = reply.json()
    assert served == catalogue()
    assert [o["key"] for o in served["options"]] == list(OPTION_KEYS)
    assert [p["name"] for p in served["presets"]] == list(PRESETS)
    defaults = Rules().to_dict()
    for option in served["options"]:
        assert option["default"] == defaults[option["key"]]
        for value in [*option.get("values", []), option.get("min"), option.get("max")]:
            if value is not None:  # every value and both ends of a range are allowed
                assert Rules.from_dict({option["key"]: value}).to_dict()[option["key"]] == value
        if option["kind"] == "int":
            with pytest.raises(BadOption):
                Rules.from_dict({option["key"]: option["max"] + 1})
    for preset in served["presets"]:
        assert preset["rules"] == Rules.from_dict({"preset": preset["name"]}).to_dict()
        assert preset["options"] == PRESETS[preset["name"]]


def test_the_version_follows_the_engines_options(monkeypatch: pytest.MonkeyPatch) -> None:
    before = Shell.of(WEB_DIR)
    monkeypatch.setitem(PRESETS, "quick", {"hand_size": 3})
    after = Shell.of(WEB_DIR)
    assert after.version != before.version
    assert b'"quick"' in after.documents["/options.json"]

"""The security headers of every HTTP reply, ``no-store`` on the API's replies, and no
third-party script on this origin (FastAPI's ``/docs`` and ``/redoc`` are off).  That
the browser client runs under the policy is checked in a browser
(``tests/e2e/browser/test_csp.py``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from maumau.server.app import create_app
from maumau.server.config import WEB_DIR, ServerConfig
from maumau.server.live.hub import Hub
from support.serverkit import auth, create_table, make_client

SECURITY = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with make_client(tmp_path_factory.mktemp("data")) as client:
        yield client


def policy(reply: httpx.Response) -> dict[str, str]:
    """The Content-Security-Policy of ``reply``, directive by directive."""
    header = reply.headers.get("content-security-policy")
    assert header, f"{reply.request.url}: no Content-Security-Policy"
    assert reply.headers.get_list("content-security-policy") == [header]
    directives = (d.strip().split(" ", 1) for d in header.split(";"))
    return {name: value for name, value in directives}


def secured(reply: httpx.Response) -> None:
    for name, value in SECURITY.items():
        assert reply.headers.get(name) == value, (reply.request.url, name)
    rules = policy(reply)
    assert rules["default-src"] == "'none'"
    assert rules["frame-ancestors"] == "'none'"
    for name in ("script-src", "style-src", "connect-src", "img-src"):
        assert rules[name] == "'self'", (name, rules[name])
    assert "unsafe" not in reply.headers["content-security-policy"]


def test_the_pages_of_the_client_carry_the_policy(client: TestClient) -> None:
    game_id, _ = create_table(client)
    for path in ("/", "/index.html", "/js/main.js", "/style.css", f"/g/{game_id}"):
        reply = client.get(path)
        assert reply.status_code == 200, path
        secured(reply)
        assert reply.headers.get("cache-control") != "no-store", path  # files may be cached
    assert client.get("/").headers["content-type"].startswith("text/html")


def test_every_api_reply_carries_the_policy_and_is_not_stored(client: TestClient) -> None:
    created = client.post("/api/games", json={"name": "Ana"})
    assert created.status_code == 201 and "token" in created.json()
    game_id, token = created.json()["game_id"], created.json()["token"]
    joined = client.post(f"/api/games/{game_id}/seats", json={"name": "Ben"})
    replies = [
        created,
        joined,
        client.post(f"/api/games/{game_id}/seats", json={"name": "Ben"}, headers=auth(token)),
        client.get(f"/api/games/{game_id}"),
        client.get("/api/health"),
        client.get(f"/api/games/{game_id}/qr.svg"),
        client.get(f"/api/games/{game_id}/record"),  # 409: not finished
        client.get("/api/games/nope"),  # 404
        client.get("/api/nothing"),  # 404 from the router
        client.delete("/api/health"),  # 405
        client.post("/api/games", content=b"{", headers={"content-type": "application/json"}),
        client.post("/api/games", content=b"x" * 70_000),  # 413 from the body limit
    ]
    assert {r.status_code for r in replies} >= {200, 201, 400, 404, 405, 409, 413}
    for reply in replies:
        secured(reply)
        assert reply.headers.get("cache-control") == "no-store", reply.request.url


def test_no_third_party_script_pages(client: TestClient) -> None:
    """``/docs`` and ``/redoc`` loaded Swagger UI and ReDoc from a CDN, unpinned and
    without integrity, on the origin whose storage holds the seat tokens."""
    for path in ("/docs", "/redoc", "/docs/oauth2-redirect"):
        reply = client.get(path)
        assert reply.status_code == 404, path
        assert "cdn" not in reply.text.lower()
    schema = client.get("/openapi.json")
    assert schema.status_code == 200
    assert "/api/games" in schema.json()["paths"]
    secured(schema)


def test_a_failure_of_the_server_carries_the_headers_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(self: Hub, game_id: str) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(Hub, "current", broken)
    app = create_app(ServerConfig(data_dir=tmp_path))
    with TestClient(app, raise_server_exceptions=False) as client:
        reply = client.get("/api/games/abc")
    assert reply.status_code == 500
    secured(reply)


def test_websocket_handshakes_are_left_alone(client: TestClient) -> None:
    game_id, _ = create_table(client)
    with client.websocket_connect(f"/ws/{game_id}") as ws:
        assert not ws.extra_headers


def test_the_client_has_nothing_inline() -> None:
    """What the policy refuses: inline scripts and styles, style attributes, and
    handlers in the markup (the browser test runs the pages themselves)."""
    html = (WEB_DIR / "index.html").read_text("utf-8")
    assert re.findall(r"<script\b[^>]*>", html) == ['<script type="module" src="/js/main.js">']
    assert not re.search(r"<style\b|\sstyle=|\son\w+=", html)
    for path in sorted((WEB_DIR / "js").glob("*.js")):
        text = path.read_text("utf-8")
        for banned in ("eval(", "new Function", 'setAttribute("style"', "style: `", 'style: "'):
            assert banned not in text, f"{path.name}: {banned}"

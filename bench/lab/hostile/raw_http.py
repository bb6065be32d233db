"""Malformed HTTP requests built by hand: bodies, content types, sizes, headers, paths
and methods."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from lab.hostile.games import Context, GameCtx
from lab.hostile.protocol import BODY_LIMIT
from lab.hostile.values import dumps, json_values, parses


@dataclass(frozen=True)
class RawRequest:
    category: str
    method: str
    path: str
    headers: tuple[tuple[str, str], ...]
    body: bytes | None
    chunked: bool = False
    expect: tuple[str, ...] = ()
    #: not valid HTTP: the server's HTTP parser may refuse it (a plain 400) before the
    #: application sees it
    invalid_http: bool = False

    def content(self) -> bytes | Iterator[bytes] | None:
        """The body as an HTTP client sends it: an iterator of 8 KiB pieces when it
        goes chunked (no Content-Length)."""
        body = self.body
        if self.chunked and body is not None:
            return iter([body[i : i + 8192] for i in range(0, len(body), 8192)])
        return body

    def describe(self) -> dict[str, Any]:
        body = repr(self.body[:200]) if self.body is not None else None
        return {
            "category": self.category,
            "method": self.method,
            "path": self.path[:200],
            "headers": [list(h) for h in self.headers],
            "body": body,
            "size": len(self.body or b""),
            "expect": list(self.expect),
        }


def http_games(ctx: Context) -> list[GameCtx]:
    """The games HTTP probes may name: never a table in the lobby (a request without a
    token may rightly take a seat there)."""
    return [g for g in ctx.games.values() if g.status != "lobby"]


def auth_headers(ctx: Context) -> list[str]:
    """Authorization values: real tokens of running games (they change nothing there),
    strangers, and malformed ones."""
    real = [t for g in ctx.games.values() if g.status == "playing" for t in g.tokens.values()]
    some = real[0] if real else "x" * 43
    return [
        *(f"Bearer {t}" for t in real),
        *(f"Bearer {t}" for t in ctx.strangers),
        "Bearer " + "A" * 43,
        "Bearer",
        "Bearer ",
        "Basic dXNlcjpwYXNz",
        f"bearer {some}",
        some,
        f"Bearer {some} extra",
        f"Bearer  {some}",
        "Bearer " + "x" * 5000,
        "Bearer null",
        "Token abc",
        "Bearer \t",
    ]


def raw_requests(ctx: Context) -> st.SearchStrategy[RawRequest]:
    """Malformed HTTP requests built by hand: bodies, content types, sizes, headers,
    paths and methods."""
    ids = [g.id for g in http_games(ctx)]
    game_id = st.sampled_from(ids) | st.text(
        st.characters(codec="ascii", categories=["L", "N"]) | st.sampled_from("-_"),
        min_size=1,
        max_size=40,
    )
    body_paths = st.one_of(
        st.just("/api/games"),
        game_id.map(lambda g: f"/api/games/{g}/seats"),
        game_id.map(lambda g: f"/api/games/{g}/bots"),
    )
    auth = st.sampled_from(auth_headers(ctx))
    json_type = (("content-type", "application/json"),)

    @st.composite
    def bad_json(draw: st.DrawFn) -> RawRequest:
        body = draw(
            st.sampled_from(
                [
                    b"{",
                    b"{bad",
                    b'{"name": "Ana"',
                    b"\xff\xfe",
                    b"[" * 4000,
                    b"{'name': 'x'}",
                    b'{"name": "Ana",}',
                    b"\xef\xbb\xbf{",
                    b"nul",
                    b'{"name": NaN',
                    b"\x00",
                ]
            )
            | st.binary(min_size=1, max_size=300).filter(lambda b: not parses(b))
        )
        return RawRequest(
            "bad-json-body", "POST", draw(body_paths), json_type, body, expect=("bad_json",)
        )

    @st.composite
    def wrong_shape(draw: st.DrawFn) -> RawRequest:
        body = dumps(draw(json_values(10)), False).encode()
        return RawRequest("wrong-shape-body", "POST", draw(body_paths), json_type, body)

    @st.composite
    def content_type(draw: st.DrawFn) -> RawRequest:
        kind = draw(
            st.sampled_from(
                [
                    "text/plain",
                    "application/x-www-form-urlencoded",
                    "multipart/form-data",
                    "multipart/form-data; boundary=x",
                    "application/xml",
                    "",
                    "application/jsonx",
                    "application/json; charset=latin-1",
                    "application/vnd.api+json",
                    "*/*",
                    "application/json, text/plain",
                ]
            )
        )
        body = draw(
            st.sampled_from([b'{"name": "Ana"}', b"name=Ana", b"--x\r\n\r\n--x--", b"<a/>", b""])
        )
        headers = (("content-type", kind),) if kind else ()
        return RawRequest("content-type", "POST", draw(body_paths), headers, body)

    @st.composite
    def invalid_http(draw: st.DrawFn) -> RawRequest:
        name, value = draw(
            st.sampled_from(
                [
                    ("content-type", "\x7f"),
                    ("content-type", "application/json\x01"),
                    ("authorization", "Bearer \x01abc"),
                    ("authorization", "Bearer \x7f" + "A" * 42),
                    ("x-junk", "\x00"),
                ]
            )
        )
        headers = ((name, value),) if name == "content-type" else ((name, value), *json_type)
        return RawRequest(
            "invalid-http",
            "POST",
            draw(body_paths),
            headers,
            b'{"name": "Ana"}',
            invalid_http=True,
        )

    @st.composite
    def too_large(draw: st.DrawFn) -> RawRequest:
        size = draw(st.integers(BODY_LIMIT + 1, 400_000))
        body = b'{"name": "Ana", "pad": "' + b"z" * size + b'"}'
        chunked = draw(st.booleans())
        path = draw(body_paths | game_id.map(lambda g: f"/api/games/{g}/start"))
        return RawRequest(
            "too-large-body", "POST", path, json_type, body, chunked, ("message_too_large",)
        )

    @st.composite
    def bad_auth(draw: st.DrawFn) -> RawRequest:
        gid = draw(st.sampled_from(ids))
        method, path, body = draw(
            st.sampled_from(
                [
                    ("POST", f"/api/games/{gid}/start", None),
                    ("POST", f"/api/games/{gid}/bots", b'{"level": "easy"}'),
                    ("POST", f"/api/games/{gid}/seats", b'{"name": "Mallory"}'),
                    ("POST", f"/api/games/{gid}/rematch", None),
                    ("DELETE", f"/api/games/{gid}/seats/1", None),
                    ("DELETE", f"/api/games/{gid}/seats/0", None),
                ]
            )
        )
        headers = (("authorization", draw(auth)), *json_type)
        return RawRequest("bad-auth", method, path, headers, body)

    @st.composite
    def bad_path(draw: st.DrawFn) -> RawRequest:
        gid = draw(game_id)
        path = draw(
            st.sampled_from(
                [
                    f"/api/games/{gid}/nothing",
                    f"/api/games/{gid}/seats/x",
                    f"/api/games/{gid}/seats/-1",
                    f"/api/games/{gid}/seats/99999999999999999999999",
                    f"/api/games/{gid}/seats/1.5",
                    "/api/games/" + "a" * draw(st.integers(33, 5000)),
                    "/api/games/%00",
                    "/api/games/%F0%9F%83%8F",
                    "/api/games/..%2F..%2Fetc",
                    "/api/nothing",
                    "/api/",
                    f"/api/games/{gid}/record/x",
                    f"/api/games/{gid}/qr.svg/x",
                    "/ws/x",
                    "/api/games/%ZZ",
                ]
            )
        )
        method = draw(st.sampled_from(["GET", "POST", "DELETE"]))
        return RawRequest("bad-path", method, path, (), None)

    @st.composite
    def wrong_method(draw: st.DrawFn) -> RawRequest:
        gid = draw(st.sampled_from(ids))
        path = draw(
            st.sampled_from(
                [
                    "/api/health",
                    "/api/games",
                    f"/api/games/{gid}",
                    f"/api/games/{gid}/start",
                    f"/api/games/{gid}/seats",
                    f"/api/games/{gid}/record",
                    f"/api/games/{gid}/bots",
                ]
            )
        )
        method = draw(st.sampled_from(["PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PROPFIND"]))
        if (method, path) == ("DELETE", f"/api/games/{gid}/seats"):
            path = f"/api/games/{gid}/start"
        return RawRequest("wrong-method", method, path, (), None, expect=("method_not_allowed",))

    return st.one_of(
        invalid_http(),
        bad_json(),
        wrong_shape(),
        content_type(),
        too_large(),
        bad_auth(),
        bad_path(),
        wrong_method(),
    )

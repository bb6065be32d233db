"""docs/protocol.md names everything the protocol has: every message type, every field of
every model in ``maumau.server.wire.protocol``, every HTTP route and every error code.

Names count only in backticks outside fenced code blocks (in prose and tables), so a
JSON example alone does not document a field.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from maumau.server.app import create_app
from maumau.server.config import ServerConfig
from maumau.server.http import sockets
from maumau.server.wire import protocol, table_talk
from maumau.server.wire.errors import ENGINE_CODES, ERROR_CODES
from support.paths import ROOT

DOC = ROOT / "docs" / "protocol.md"


def _prose() -> str:
    """The document without its fenced code blocks."""
    return re.sub(r"^```.*?^```[ \t]*$", "", DOC.read_text(encoding="utf-8"), flags=re.M | re.S)


def _quoted() -> set[str]:
    """Every `inline code` span outside fenced code blocks."""
    return set(re.findall(r"`([^`\n]+)`", _prose()))


def _models() -> list[type[protocol.Model]]:
    """Every pydantic model of the protocol (defined in the protocol module, or in
    ``table_talk`` and taken into it)."""
    return [
        value
        for value in vars(protocol).values()
        if isinstance(value, type)
        and issubclass(value, protocol.Model)
        and value.__module__ in (protocol.__name__, table_talk.__name__)
    ]


def _message_type(model: type[protocol.Model]) -> str:
    """The ``type`` literal of a message model."""
    (literal,) = typing.get_args(model.model_fields["type"].annotation)
    assert isinstance(literal, str)
    return literal


def _routes(routes: Sequence[Any], prefix: str = "") -> Iterator[tuple[str, set[str]]]:
    """(path, methods) of every route, looking into included routers (FastAPI versions
    that keep them nested) and skipping mounts (the static web client)."""
    for route in routes:
        included = getattr(route, "original_router", None)
        if included is not None:
            context = getattr(route, "include_context", None)
            yield from _routes(included.routes, prefix + getattr(context, "prefix", ""))
            continue
        path = getattr(route, "path", None)
        if path is None or not hasattr(route, "endpoint"):  # a Mount has no endpoint
            continue
        yield prefix + path, set(getattr(route, "methods", None) or ()) - {"HEAD"}


@pytest.fixture(scope="module")
def app_routes(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, set[str]]]:
    app = create_app(ServerConfig(data_dir=tmp_path_factory.mktemp("data")))
    own = {app.openapi_url, app.docs_url, app.redoc_url, app.swagger_ui_oauth2_redirect_url}
    found = [(path, methods) for path, methods in _routes(app.routes) if path not in own]
    assert found, "the app has no routes: the route walk no longer fits FastAPI"
    return found


def test_the_document_exists() -> None:
    assert DOC.is_file(), f"{DOC} is missing"


def test_every_error_code_is_named() -> None:
    quoted = _quoted()
    missing = [code for code in (*ERROR_CODES, *ENGINE_CODES) if code not in quoted]
    assert not missing, f"docs/protocol.md does not name these error codes: {missing}"


def test_every_server_code_has_its_status_in_a_table() -> None:
    prose = _prose()
    wrong = [
        f"{code} ({status})"
        for code, (status, _) in ERROR_CODES.items()
        if not re.search(rf"^\|\s*`{re.escape(code)}`\s*\|\s*{status}\s*\|", prose, re.M)
    ]
    assert not wrong, f"no table row '| `code` | status |' for: {wrong}"


def test_engine_codes_point_to_the_record_doc() -> None:
    assert "docs/record.md" in _prose()


def test_every_message_type_is_named() -> None:
    quoted = _quoted()
    types = [_message_type(m) for m in (*protocol.CLIENT_MESSAGES, *protocol.SERVER_MESSAGES)]
    assert len(types) == len(set(types)), f"a message type is used twice: {types}"
    missing = [t for t in types if t not in quoted]
    assert not missing, f"docs/protocol.md does not name these message types: {missing}"


def test_every_message_type_has_a_heading() -> None:
    prose = _prose()
    types = [_message_type(m) for m in (*protocol.CLIENT_MESSAGES, *protocol.SERVER_MESSAGES)]
    missing = [t for t in types if not re.search(rf"^#+ `{re.escape(t)}`\s*$", prose, re.M)]
    assert not missing, f"no heading of their own for these message types: {missing}"


def test_every_field_of_every_model_is_named() -> None:
    quoted = _quoted()
    models = _models()
    assert {*protocol.CLIENT_MESSAGES, *protocol.SERVER_MESSAGES} <= set(models)
    missing = [
        f"{model.__name__}.{field}"
        for model in models
        for field in model.model_fields
        if field not in quoted
    ]
    assert not missing, f"docs/protocol.md does not name these fields: {missing}"


def test_every_route_path_is_named(app_routes: list[tuple[str, set[str]]]) -> None:
    prose = _prose()
    missing = sorted(
        {path for path, _ in app_routes if not re.search(re.escape(path) + r"(?![\w/{])", prose)}
    )
    assert not missing, f"docs/protocol.md does not name these routes: {missing}"


def test_every_http_endpoint_has_a_heading(app_routes: list[tuple[str, set[str]]]) -> None:
    prose = _prose()
    missing = [
        f"{method} {path}"
        for path, methods in app_routes
        for method in sorted(methods)
        if not re.search(rf"^#+ `{method} {re.escape(path)}`\s*$", prose, re.M)
    ]
    assert not missing, f"no heading '### `METHOD /path`' for: {missing}"


def test_the_table_socket_is_documented_and_served() -> None:
    # the app serves it itself (maumau.server.app.App), not through a FastAPI route
    assert "/ws/{game_id}" in _quoted()
    match = sockets.SOCKET_PATH.fullmatch("/ws/D-9ufO_TENEkIDab")
    assert match is not None and match["game_id"] == "D-9ufO_TENEkIDab"
    assert sockets.SOCKET_PATH.fullmatch("/ws/a/b") is None


def test_every_deadline_stated_is_the_code_default() -> None:
    """ "N seconds (`x_seconds`...)": N is ServerConfig's default and maumau serve's (the
    hello deadline was 10 s in the code while a document said 5 s)."""
    from maumau.cli.main import build_parser

    serve = next(
        sub
        for action in build_parser()._subparsers._group_actions  # type: ignore[union-attr]
        for name, sub in getattr(action, "choices", {}).items()
        if name == "serve"
    )
    defaults = {a.dest: a.default for a in serve._actions}
    stated = re.findall(r"(\d+(?:\.\d+)?) seconds?[^(|]{0,40}\(`(\w+_seconds)`", _prose())
    assert {"hello_seconds", "header_seconds", "body_seconds"} <= {name for _, name in stated}
    for seconds, name in stated:
        assert float(seconds) == getattr(ServerConfig(), name), name
        if name in defaults:
            assert float(seconds) == defaults[name], f"maumau serve's --{name}"

"""The client messages are defined once, by the union ``protocol.ClientMessage``: the
socket's list of types, ``CLIENT_MESSAGES`` and the dispatch in ``sockets.py`` follow
it, and every type the browser client and the load tool send is one of them.

The dispatch is checked twice: by mypy (``assert_never`` after its last branch), and
here, where one message of every type goes through a real socket and must reach its
handler (a type without a branch would end in ``internal_error``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, get_args

from lab.hostile import protocol as hostile
from maumau.server.http import sockets
from maumau.server.live.chat import REACTIONS
from maumau.server.wire import protocol
from support.serverkit import create_table, hello, make_client, receive_until

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "src" / "maumau"

#: one well-formed message of every client type (a new type asks for its example here)
EXAMPLES: dict[str, dict[str, Any]] = {
    "hello": {"type": "hello", "token": None},
    "action": {"type": "action", "version": 0, "action_id": "a1", "action": {"draw": 1}},
    "ping": {"type": "ping"},
    "ready": {"type": "ready"},
    "ask_seat": {"type": "ask_seat", "seat": 1, "name": "Bo"},
    "withdraw_seat": {"type": "withdraw_seat"},
    "answer_seat": {"type": "answer_seat", "request": 1, "accept": False},
    "chat": {"type": "chat", "text": "hi"},
    "react": {"type": "react", "key": REACTIONS[0]},
    "set_chat": {"type": "set_chat", "chat": True, "spectators": True},
}
#: the refusals that mean the message never reached a handler of its own
NOT_HANDLED = {"unknown_type", "bad_message", "internal_error"}


def test_the_lists_of_types_are_read_from_the_union() -> None:
    union = get_args(get_args(protocol.ClientMessage)[0])
    assert union == protocol.CLIENT_MESSAGES
    assert sockets.TYPES == protocol.CLIENT_TYPES
    assert tuple(protocol.message_type(m) for m in union) == protocol.CLIENT_TYPES
    assert len(set(protocol.CLIENT_TYPES)) == len(protocol.CLIENT_TYPES)


def test_the_hostile_probes_build_types_of_the_union() -> None:
    """The types the hostile campaign builds messages of are the union's (its "unknown
    type" is none of the union's: it reads them, as ``KNOWN_TYPES``)."""
    assert set(hostile.TYPES) <= set(protocol.CLIENT_TYPES)


def test_every_example_is_its_type() -> None:
    assert list(EXAMPLES) == list(protocol.CLIENT_TYPES)
    for kind, message in EXAMPLES.items():
        model = protocol.CLIENT_MESSAGES[protocol.CLIENT_TYPES.index(kind)]
        assert isinstance(sockets.parse(message), model), kind


def test_every_type_reaches_its_handler(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, token = create_table(client)
        with client.websocket_connect(f"/ws/{game_id}") as ws:
            hello(ws, token)
            for kind, message in EXAMPLES.items():
                ws.send_json(message)
                # a move before the start, refused after everything sent before it (a
                # ping would not do: pong is sent before the messages ahead are handled)
                mark = f"after-{kind}"
                ws.send_json({**EXAMPLES["action"], "action_id": mark})
                replies = receive_until(ws, lambda m, mark=mark: m.get("action_id") == mark)
                assert replies[-1]["code"] == "game_not_started"
                codes = {m["code"] for m in replies if m["type"] == "error"}
                assert not codes & NOT_HANDLED, f"{kind}: {replies}"


def sent_types(text: str) -> set[str]:
    """The message types a client's source sends: ``send({ type: "x"`` and
    ``send(JSON.stringify({ type: "x"`` (JS); ``dumps({"type": "x"`` and
    ``ENCODE({"type": "x"`` (Python)."""
    js = re.findall(r'send\((?:JSON\.stringify\()?\s*\{\s*type:\s*"(\w+)"', text)
    py = re.findall(r'(?:dumps|ENCODE)\(\s*\{\s*"type":\s*"(\w+)"', text)
    return set(js) | set(py)


def test_the_clients_send_only_types_of_the_union() -> None:
    browser = set().union(*(sent_types(p.read_text("utf-8")) for p in SOURCES.glob("web/js/*.js")))
    load = set().union(*(sent_types(p.read_text("utf-8")) for p in SOURCES.glob("loadtest/*.py")))
    assert {
        "hello",
        "action",
        "ping",
        "chat",
        "ask_seat",
    } <= browser  # the pattern still finds them
    assert {"hello", "action"} <= load
    assert sorted((browser | load) - set(protocol.CLIENT_TYPES)) == []

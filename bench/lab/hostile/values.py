"""Hostile values: any JSON (NaN, Infinity and lone surrogates too), text that is not
JSON, bytes that are not UTF-8, types the server does not take."""

from __future__ import annotations

import functools
import json
from typing import Any

from hypothesis import strategies as st

from lab.hostile.protocol import ACTION_KEYS, FIELDS, MESSAGE_LIMIT, TYPES

#: types the server does not take (some of them its own messages' types)
OTHER_TYPES = (
    "pong", "welcome", "state", "error", "closed", "lobby", "ack", "HELLO", "Ping", " ping",
    "ping ", "act", "actions", "ready\x00", "", "hello\u200b", "game_end",
)  # fmt: skip
ACTION_TYPOS = ("Action", "ACTION", " action", "action ", "actions", "act", "action\x00")
#: text that is not JSON (as Python's parser reads it)
NOT_JSON = (
    "{", "}", "{not json", '{"type": "ping"', "{'type': 'ping'}", '{"type": "ping",}',
    '{"type": ping}', "\ufeff{}", '\ufeff{"type": "ping"}', "nan", "inf", "None", "True",
    '{"type": "ping"} {"type": "ping"}', "[" * 2000, '{"a": ' * 1000, "// x\n{}",
    '{"type": "ping" /* c */}', '"unterminated', "0x10", "+1", ".5", "1.", "--1",
    '{"type": "\\x41"}', '{"type": "\\ud800\\"}', "\x00", "", " ", "\n", "<xml/>",
)  # fmt: skip
#: binary frames with bytes that are not UTF-8 (the server reads them with U+FFFD)
BINARY_SAMPLES = (
    b'{"type": "ping", "x": "\xff"}', b'{"type": "hello", "token": "\xff\xfe\xfd"}',
    b'{"type": "\xc0\xaf"}', b"\xef\xbb\xbf{}", b"\x00" * 10,
    b'{"type": "action", "version": 1, "action_id": "\xed\xa0\x80", "action": {"draw": 1}}',
)  # fmt: skip


def dumps(value: Any, ascii_only: bool = True) -> str:
    """JSON text of ``value``; NaN and Infinity as Python writes them (valid for the
    server's parser); lone surrogates always as escapes (they cannot go on the wire)."""
    text = json.dumps(value, ensure_ascii=ascii_only, allow_nan=True)
    try:
        text.encode()
    except UnicodeEncodeError:
        text = json.dumps(value, ensure_ascii=True, allow_nan=True)
    return text


SURROGATES = st.integers(0xD800, 0xDFFF).map(chr)
TEXT = st.text(max_size=24) | st.text(st.characters() | SURROGATES, max_size=8)
NUMBERS = (
    st.integers()
    | st.integers(-(10**40), 10**40)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([0, -1, 2**31, 2**63, -(2**63) - 1, 10**100, 1e308, -0.0, 5e-324])
)
CARDISH = st.sampled_from(
    ["7H", "JC", "AS", "2C", "TH", "10H", "qh", "J", "", "XX", "JC ", "7h", "1S", "ZZ"]
)


@functools.cache
def json_values(max_leaves: int = 16) -> st.SearchStrategy[Any]:
    """Any JSON value (NaN and Infinity included), with keys the protocol uses mixed in."""
    scalars = st.none() | st.booleans() | NUMBERS | TEXT | CARDISH | st.sampled_from(TYPES)
    keys = TEXT | st.sampled_from(FIELDS + ACTION_KEYS)
    return st.recursive(
        scalars,
        lambda kids: st.lists(kids, max_size=5) | st.dictionaries(keys, kids, max_size=5),
        max_leaves=max_leaves,
    )


def fits(text: str) -> bool:
    return len(text.encode()) <= MESSAGE_LIMIT


def parses(text: str | bytes) -> bool:
    """Whether ``text`` is JSON (bytes: in any of the encodings JSON allows)."""
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True

"""The server reads the common ``action`` message on a fast path that skips pydantic;
it must take exactly what the protocol's model takes."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from maumau.server.http.sockets import CLIENT, _plain_action, parse
from maumau.server.wire.errors import ServerError

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=2**64),
    st.floats(allow_nan=False),
    st.text(max_size=70),
    st.sampled_from(["\ud800", "a\udfff", "é"]),  # lone surrogates: JSON, but no text
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=6,
)
keys = st.one_of(st.text(max_size=5), st.sampled_from(["play", "\ud800", "dra\udc00w"]))
#: action messages, near-misses among them: a wrong type, a missing or extra key
actions = st.fixed_dictionaries(
    {"type": st.just("action")},
    optional={
        "version": st.one_of(st.integers(min_value=-2, max_value=10**6), values),
        "action_id": st.one_of(st.text(min_size=0, max_size=66), values),
        "action": st.one_of(st.dictionaries(keys, values, max_size=3), values),
        "extra": values,
    },
)


@settings(max_examples=600, deadline=None)
@given(actions)
def test_the_fast_path_takes_what_the_model_takes(data: dict[str, Any]) -> None:
    try:
        expected = CLIENT.validate_python(data)
    except ValidationError:
        expected = None
    try:
        got = parse(data)
    except ServerError as exc:
        assert exc.code == "bad_message"
        got = None
    assert got == expected
    if _plain_action(data):
        assert expected is not None


def test_a_plain_move_takes_the_fast_path() -> None:
    data = {"type": "action", "version": 3, "action_id": "a-1", "action": {"play": "7H"}}
    assert _plain_action(data)
    assert parse(data) == CLIENT.validate_python(data)
    wrongs: list[dict[str, Any]] = [
        {"version": True},
        {"version": 3.0},
        {"version": -1},
        {"action_id": ""},
        {"action_id": "x\ud800"},
        {"action": {"\ud800": 1}},
    ]
    for wrong in wrongs:
        assert not _plain_action({**data, **wrong})

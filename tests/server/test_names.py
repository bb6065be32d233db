"""Display names (docs/protocol.md, "Display names"): the rules of
``maumau.server.wire.names``, as examples and as properties, and the HTTP answers of creating
a table and taking a seat with a bad or a taken name."""

from __future__ import annotations

import json
import sqlite3
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from maumau.server.wire.errors import ServerError
from maumau.server.wire.names import (
    BLANK,
    MAX_LENGTH,
    display_name,
    distinct_name,
    name_key,
    normalise,
)
from support.serverkit import add_bot, auth, create_table, join, make_client

REFUSED = ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")

#: one of each kind of code point a name may not hold, with the U+ it is named by
FORBIDDEN = [
    ("\x00", "U+0000"),  # NUL
    ("\t", "U+0009"),
    ("\n", "U+000A"),
    ("\x7f", "U+007F"),
    ("\x85", "U+0085"),
    ("\u00ad", "U+00AD"),  # soft hyphen
    ("\u061c", "U+061C"),  # Arabic letter mark
    ("\u200b", "U+200B"),  # zero-width space
    ("\u200c", "U+200C"),  # zero-width non-joiner
    ("\u200d", "U+200D"),  # zero-width joiner
    ("\u200e", "U+200E"),  # left-to-right mark
    ("\u202a", "U+202A"),  # left-to-right embedding
    ("\u202e", "U+202E"),  # right-to-left override
    ("\u2066", "U+2066"),  # left-to-right isolate
    ("\u2069", "U+2069"),  # pop directional isolate
    ("\u2060", "U+2060"),  # word joiner
    ("\ufeff", "U+FEFF"),  # byte order mark
    ("\U000e0041", "U+E0041"),  # tag latin capital letter A
    ("\ud800", "U+D800"),  # a lone surrogate
    ("\ue000", "U+E000"),  # private use
    ("\U0010fffd", "U+10FFFD"),  # private use, plane 16
    ("\u0378", "U+0378"),  # unassigned
    ("\u2028", "U+2028"),  # line separator
    ("\u2029", "U+2029"),  # paragraph separator
]
#: letters that draw nothing
BLANKS = ["\u3164", "\u115f", "\u1160", "\uffa0", "\u2800", "\u034f"]


def wide(text: str) -> str:
    """``text`` in full-width forms (ASCII letters, digits, brackets; the ideographic space)."""
    return "".join("\u3000" if c == " " else chr(ord(c) + 0xFEE0) for c in text)


def refusal(raw: str) -> ServerError:
    with pytest.raises(ServerError) as caught:
        display_name(raw)
    return caught.value


# --- the rules, by example ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "stored"),
    [
        ("Ana", "Ana"),
        ("  Ana  ", "Ana"),
        ("Ana   Bo", "Ana Bo"),
        ("Ana\u00a0\u3000 Bo", "Ana Bo"),  # no-break and ideographic spaces
        ("\u2003Ana\u2009", "Ana"),  # em space, thin space
        ("Zoe\u0308", "Zoë"),  # NFC
        ("e\u0301" * 20, "é" * 20),  # 40 code points before NFC, 20 after
        (" " * 40 + "Ana" + " " * 40, "Ana"),  # the limit counts after normalisation
        ("W" * MAX_LENGTH, "W" * MAX_LENGTH),
        ("😀 Emma", "😀 Emma"),
        ("👍🏽", "👍🏽"),  # a skin tone is a modifier symbol, not a format character
        ("❤️", "❤️"),  # a variation selector is a mark
        ("🇩🇰", "🇩🇰"),  # a flag: two regional indicators
        ("אבי כהן", "אבי כהן"),  # Hebrew
        ("محمد", "محمد"),  # Arabic
        ("김민준", "김민준"),
        ("Ada", "Ada"),  # a bot's first name alone is a person's name
        ("Botanic", "Botanic"),
        ("Bot", "Bot"),
        ("Ada (robot)", "Ada (robot)"),
        ("?", "?"),
    ],
)
def test_accepted_names_are_stored_normalised(raw: str, stored: str) -> None:
    assert display_name(raw) == stored


@pytest.mark.parametrize(("char", "code_point"), FORBIDDEN)
def test_control_and_format_characters_are_refused_by_code_point(
    char: str, code_point: str
) -> None:
    for raw in (f"Ana{char}", f"{char}Ana", f"An{char}a", f"Ana {char}"):
        error = refusal(raw)
        assert error.code == "bad_name" and error.status == 422
        assert error.message.startswith("name: ")
        assert f"(such as {code_point})" in error.message, error.message


def test_the_messages_name_the_kind_of_character() -> None:
    assert refusal("evil\u202e").message == (
        "name: control and format characters (such as U+202E) are not allowed"
    )
    assert "lone surrogates" in refusal("a\udc00").message
    assert "private-use characters" in refusal("a\ue000").message
    assert "unassigned code points" in refusal("a\u0378").message
    assert "line and paragraph separators" in refusal("a\u2028b").message


@pytest.mark.parametrize("blank", BLANKS)
def test_letters_that_draw_nothing_are_refused(blank: str) -> None:
    for raw in (blank, f"Anna{blank}", f"{blank} {blank}"):
        error = refusal(raw)
        assert error.code == "bad_name"
        assert f"invisible characters (such as U+{ord(blank):04X})" in error.message


@pytest.mark.parametrize(
    "raw", ["", " ", "   ", "\u3000", "\u00a0 \u2002", "\u0301", "\u0301\u0302"]
)
def test_a_name_needs_something_visible(raw: str) -> None:
    error = refusal(raw)
    assert error.code == "bad_name"
    assert error.message in (
        "name: it is empty",
        "name: it needs at least one visible letter, digit or symbol",
    )


def test_empty_and_blank_are_told_apart() -> None:
    assert refusal("").message == "name: it is empty"
    assert refusal("  ").message == "name: it needs at least one visible letter, digit or symbol"


def test_at_most_32_code_points_after_normalisation() -> None:
    assert refusal("x" * 33).message == "name: at most 32 characters (this one has 33)"
    assert refusal("😀" * 33).message == "name: at most 32 characters (this one has 33)"
    assert display_name("😀" * 32) == "😀" * 32
    # runs of spaces count once each, after collapsing: 49 sent, 33 counted
    assert refusal("a   " * 16 + "b").message == "name: at most 32 characters (this one has 33)"
    assert display_name("a  " * 15 + "ab") == "a " * 15 + "ab"


def test_a_tower_of_combining_marks_is_refused() -> None:
    assert display_name("a" + "\u0301\u0302\u0303\u0304\u0306") == unicodedata.normalize(
        "NFC", "a\u0301\u0302\u0303\u0304\u0306"
    )
    error = refusal("Zalgo" + "\u0336\u0337\u0338\u0339\u033a\u033b")
    assert error.message == "name: at most 5 combining marks on one character"


@pytest.mark.parametrize(
    "raw",
    [
        "Ada (bot)",
        "ada (BOT)",
        "Ada(bot)",
        "Ada ( bot )",
        "Anna (Bot)",
        "(bot)",
        wide("Ada (bot)"),
        "Ada (\u1d2e\u1d3c\u1d40)",  # modifier letters B, O, T: NFKC makes them "BOT"
        "Bot 3",
        "bot3",
        "BOT 12",
        wide("Bot 7"),
    ],
)
def test_a_person_cannot_look_like_a_computer_player(raw: str) -> None:
    error = refusal(raw)
    assert error.code == "bad_name"
    assert error.message == "name: names like “Ada (bot)” or “Bot 3” are for computer players"


@pytest.mark.parametrize(
    "raw",
    [
        "Ada (b\u043et)",  # a Cyrillic o: it shows and chats as "Ada (bot)"
        "Ada (\u042c\u043et)",  # a Cyrillic soft sign for the b
        "Ada \u2768bot\u2769",  # ornamental parentheses
        "\u0412\u043et 3",  # a Cyrillic Ve and o
        "Bot \u0417",  # a Cyrillic Ze for the 3
    ],
)
def test_a_person_cannot_look_like_a_computer_player_with_lookalike_letters(raw: str) -> None:
    assert name_key(raw) != name_key("Ada (bot)")  # NFKC and case folding keep them apart
    error = refusal(raw)
    assert error.code == "bad_name"
    assert error.message == "name: names like “Ada (bot)” or “Bot 3” are for computer players"


def test_every_bot_name_the_server_gives_is_refused_to_a_person() -> None:
    from maumau.server.live.seating import BOT_NAMES

    for name in BOT_NAMES:
        assert refusal(f"{name} (bot)").code == "bad_name"
        assert display_name(name) == name
    for n in range(1, 10):
        assert refusal(f"Bot {n}").code == "bad_name"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Anna", "anna"),
        ("Anna", "ANNA"),
        ("Anna", wide("Anna")),
        ("Straße", "STRASSE"),  # case folding, not lower-casing
        ("❤️ Jo", "❤ Jo"),  # a variation selector does not make another name
        ("Zoë", "Zoe\u0308"),
        ("Ana Bo", "ana bo"),
    ],
)
def test_names_that_read_the_same_are_taken(first: str, second: str) -> None:
    distinct_name(display_name(first), ["Other"])
    with pytest.raises(ServerError) as caught:
        distinct_name(display_name(second), ["Other", display_name(first)])
    error = caught.value
    assert error.code == "name_taken" and error.status == 409
    assert display_name(second) in error.message and display_name(first) in error.message


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Ana", "\u0410na"),  # a Cyrillic capital A
        ("Ana", "\u0430na"),  # a Cyrillic small a: "ana", the same name as "Ana"
        ("Paula", "P\u0430ul\u0430"),
        ("Jörg", "J\u04e7rg"),  # a Cyrillic o with diaeresis
        ("Olga", "0lga"),  # a digit zero
        ("Ivo", "\u0399vo"),  # a Greek capital Iota
        ("Cleo", "\u216d\u217c\u0435\u03bf"),  # Roman numerals, Cyrillic e, Greek o
    ],
)
def test_names_that_look_the_same_are_taken(first: str, second: str) -> None:
    assert name_key(first) != name_key(second)  # they read differently, but look alike
    distinct_name(display_name(first), ["Other"])
    with pytest.raises(ServerError) as caught:
        distinct_name(display_name(second), ["Other", display_name(first)])
    error = caught.value
    assert error.code == "name_taken" and error.status == 409
    assert display_name(second) in error.message and display_name(first) in error.message
    assert "look alike" in error.message
    with pytest.raises(ServerError):  # whichever came first
        distinct_name(display_name(first), [display_name(second)])


def test_accents_make_another_name() -> None:
    """The skeleton keeps accents: a name with an umlaut or a ring is another name
    than the same letters without (anyone sees the difference)."""
    for first, second in [("Jörg", "Jorg"), ("Åsa", "Asa"), ("Zoë", "Zoe"), ("Łukasz", "Lukasz")]:
        distinct_name(display_name(first), [display_name(second)])
        distinct_name(display_name(second), [display_name(first)])


def test_different_names_are_not_taken() -> None:
    for name in ("Ana", "Anna", "Ann", "Anna 2", "Hanna"):
        distinct_name(name, [n for n in ("Ana", "Anna", "Ann", "Anna 2", "Hanna") if n != name])


# --- the rules, as properties --------------------------------------------------------------

#: any code point, surrogates and the refused kinds made likely
ANY_CHAR = st.one_of(
    st.characters(exclude_categories=()),
    st.sampled_from([c for c, _ in FORBIDDEN] + BLANKS + [" ", "\u00a0", "\u3000", "\u0301"]),
)
#: characters of the allowed categories; the blank letters and marks (names.BLANK) are
#: refused whatever their category, so they are not drawn where a text must hold none
NAME_CHAR = st.characters(categories=("L", "N", "P", "S", "Zs", "M"), exclude_characters=BLANK)


def accepted(raw: str) -> str | None:
    try:
        return display_name(raw)
    except ServerError as exc:
        assert exc.code == "bad_name" and exc.status == 422
        assert exc.message.startswith("name: ")
        return None


def check_accepted(name: str) -> None:
    assert unicodedata.is_normalized("NFC", name)
    assert all(unicodedata.category(c) not in REFUSED for c in name)
    assert not set(name) & set(BLANKS)
    assert any(unicodedata.category(c)[0] in "LNPS" for c in name)
    assert 1 <= len(name) <= MAX_LENGTH
    assert name == name.strip(" ") and "  " not in name
    assert all(c == " " or unicodedata.category(c) != "Zs" for c in name)
    assert not name_key(name).replace(" ", "").endswith("(bot)")
    assert display_name(name) == name  # idempotent
    assert normalise(name) == name


@settings(max_examples=400, deadline=None)
@given(st.text(ANY_CHAR, max_size=40))
def test_every_accepted_name_keeps_the_rules(raw: str) -> None:
    name = accepted(raw)
    if name is not None:
        check_accepted(name)


@settings(max_examples=300, deadline=None)
@given(st.text(NAME_CHAR, min_size=1, max_size=48))
def test_names_of_visible_text_keep_the_rules(raw: str) -> None:
    name = accepted(raw)
    if name is not None:
        check_accepted(name)
        assert name == normalise(raw)


@settings(max_examples=200, deadline=None)
@given(
    st.text(NAME_CHAR, min_size=1, max_size=30),
    st.sampled_from(FORBIDDEN),
    st.integers(min_value=0, max_value=30),
)
def test_a_forbidden_character_anywhere_is_refused(
    raw: str, forbidden: tuple[str, str], where: int
) -> None:
    char, code_point = forbidden
    where = min(where, len(raw))
    with pytest.raises(ServerError) as caught:
        display_name(raw[:where] + char + raw[where:])
    assert caught.value.code == "bad_name"
    # the first forbidden character is named; the drawn text holds none
    assert f"(such as {code_point})" in caught.value.message


@settings(max_examples=200, deadline=None)
@given(st.text(NAME_CHAR, min_size=1, max_size=24), st.sampled_from(["(bot)", "(BOT)", " (Bot)"]))
def test_no_accepted_name_ends_like_a_bot(raw: str, suffix: str) -> None:
    with pytest.raises(ServerError) as caught:
        display_name(raw + suffix)
    assert caught.value.code == "bad_name"


@settings(max_examples=200, deadline=None)
@given(st.text(NAME_CHAR, min_size=1, max_size=32))
def test_a_name_is_taken_by_itself_in_any_case_and_spacing(raw: str) -> None:
    name = accepted(raw)
    if name is None:
        return
    distinct_name(name, [])
    for same in (name, f"  {name}\u3000", name.replace(" ", "  ")):
        with pytest.raises(ServerError) as caught:
            distinct_name(display_name(same), ["someone", name])
        assert caught.value.code == "name_taken"


# --- over HTTP ----------------------------------------------------------------------------


def error_of(reply: Any, status: int, code: str) -> str:
    """Assert a documented error reply; returns its message."""
    assert reply.status_code == status, reply.text
    body = reply.json()
    assert body == {"error": {"code": code, "message": body["error"]["message"]}}, body
    message: str = body["error"]["message"]
    return message


def post(client: TestClient, url: str, body: dict[str, Any], **headers: str) -> Any:
    """POST ``body`` as JSON with every non-ASCII character escaped (a lone surrogate is
    valid JSON as ``\\ud800``, but no UTF-8)."""
    return client.post(
        url,
        content=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **headers},
    )


def stored_names(data_dir: Path) -> list[str]:
    with sqlite3.connect(data_dir / "maumau.sqlite3") as db:
        return [row[0] for row in db.execute("SELECT name FROM seats ORDER BY game_id, position")]


def seat_names(client: TestClient, game_id: str) -> list[str]:
    return [s["name"] for s in client.get(f"/api/games/{game_id}").json()["seats"]]


BAD_NAMES = [
    ("", "it is empty"),
    ("   ", "visible"),
    ("Ana\x00", "U+0000"),
    ("\x00", "U+0000"),
    ("host\u202e", "U+202E"),
    ("\u2067Ana", "U+2067"),
    ("An\u200bna", "U+200B"),
    ("Ana\U000e0041", "U+E0041"),
    ("\ufeffAna", "U+FEFF"),
    ("Ana\ud800", "U+D800"),
    ("\u3164", "U+3164"),
    ("x" * 33, "at most 32"),
    ("y" * 1000, "at most 32"),
    ("Ada (bot)", "computer players"),
    ("Bot 2", "computer players"),
]


@pytest.mark.parametrize(("name", "named"), BAD_NAMES)
def test_creating_a_table_with_a_bad_name(tmp_path: Path, name: str, named: str) -> None:
    with make_client(tmp_path) as client:
        reply = post(client, "/api/games", {"name": name})
        message = error_of(reply, 422, "bad_name")
        assert message.startswith("name: ") and named in message
        assert client.get("/api/health").json()["tables"] == 0
    assert stored_names(tmp_path) == []


@pytest.mark.parametrize(("name", "named"), BAD_NAMES)
def test_taking_a_seat_with_a_bad_name(tmp_path: Path, name: str, named: str) -> None:
    with make_client(tmp_path) as client:
        game_id, _ = create_table(client, name="Ana")
        reply = post(client, f"/api/games/{game_id}/seats", {"name": name})
        message = error_of(reply, 422, "bad_name")
        assert message.startswith("name: ") and named in message
        assert seat_names(client, game_id) == ["Ana"]
    assert stored_names(tmp_path) == ["Ana"]


def test_the_name_is_stored_normalised(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, _ = create_table(client, name="  Ana \u00a0 Maria ")
        join(client, game_id, "Zoe\u0308\u3000")
        join(client, game_id, "e\u0301" * 30)  # 60 code points sent, 30 kept
        assert seat_names(client, game_id) == ["Ana Maria", "Zoë", "é" * 30]
    assert stored_names(tmp_path) == ["Ana Maria", "Zoë", "é" * 30]


def test_a_name_that_is_not_a_string_is_a_bad_message(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, _ = create_table(client)
        for body in ({"name": 5}, {"name": None}, {"name": ["Ana"]}):
            error_of(client.post("/api/games", json=body), 400, "bad_message")
            error_of(client.post(f"/api/games/{game_id}/seats", json=body), 400, "bad_message")


def test_two_people_cannot_share_a_name(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, _ = create_table(client, name="Anna")
        url = f"/api/games/{game_id}/seats"
        for same in ("Anna", "anna", " ANNA ", wide("Anna")):
            message = error_of(client.post(url, json={"name": same}), 409, "name_taken")
            assert "“Anna”" in message
        join(client, game_id, "Anna B")
        message = error_of(client.post(url, json={"name": "anna b"}), 409, "name_taken")
        assert "“anna b”" in message and "“Anna B”" in message
        assert seat_names(client, game_id) == ["Anna", "Anna B"]


def test_lookalike_names_are_refused_over_http(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, host = create_table(client, name="Ana")
        add_bot(client, game_id, host)
        url = f"/api/games/{game_id}/seats"
        message = error_of(client.post(url, json={"name": "\u0410na"}), 409, "name_taken")
        assert "“\u0410na”" in message and "“Ana”" in message and "look alike" in message
        message = error_of(client.post(url, json={"name": "Ada (b\u043et)"}), 422, "bad_name")
        assert "computer players" in message
        join(client, game_id, "Jörg")
        join(client, game_id, "Jorg")
        assert seat_names(client, game_id) == ["Ana", "Ada (bot)", "Jörg", "Jorg"]


def test_a_person_cannot_take_a_bots_name(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, host = create_table(client, name="Anna")
        add_bot(client, game_id, host)
        bot = seat_names(client, game_id)[1]
        assert bot == "Ada (bot)"
        url = f"/api/games/{game_id}/seats"
        for name in (bot, "ada (BOT)", "Cleo (bot)"):
            message = error_of(client.post(url, json={"name": name}), 422, "bad_name")
            assert "computer players" in message
        # the bot's first name alone is a person's name
        join(client, game_id, "Ada")
        assert seat_names(client, game_id) == ["Anna", "Ada (bot)", "Ada"]
        # and the next bot still gets a name of its own
        add_bot(client, game_id, host)
        names = seat_names(client, game_id)
        assert names[3].endswith(" (bot)") and len({n.casefold() for n in names}) == 4


def test_a_seat_holder_gets_the_seat_back_whatever_name_it_sends(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        game_id, host = create_table(client, name="Anna")
        _, guest = join(client, game_id, "Bo")
        url = f"/api/games/{game_id}/seats"
        for token, seat in ((host, 0), (guest, 1)):
            for name in ("Anna", "Bo", "Ada (bot)", "\x00"):
                reply = client.post(url, json={"name": name}, headers=auth(token))
                assert reply.status_code == 200, reply.text
                assert reply.json()["seat"] == seat
        assert seat_names(client, game_id) == ["Anna", "Bo"]

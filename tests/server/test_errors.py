"""Error messages quote what was wrong, bounded (maumau.server.wire.errors.bounded)."""

from __future__ import annotations

from maumau.server.wire.errors import MESSAGE_CHARS, QUOTED_CHARS, ServerError, bounded

LONG = "x" * 60_000


def test_bounded_cuts_quoted_values_and_long_runs() -> None:
    assert bounded("level: 'genius' is not one of random, easy") == (
        "level: 'genius' is not one of random, easy"
    )
    cut = bounded(f"preset: unknown preset {'y' * 99!r}; the presets are: standard")
    assert cut == f"preset: unknown preset '{'y' * QUOTED_CHARS}…'; the presets are: standard"
    assert bounded("k" * 500 + " is wrong") == "k" * QUOTED_CHARS + "… is wrong"
    assert len(bounded("a " * 1000)) == MESSAGE_CHARS
    assert ServerError("bad_option", f"x {LONG!r}").message == bounded(f"x {LONG!r}")

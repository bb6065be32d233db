"""Operators' commands take their options from MAUMAU_* variables too (maumau.cli.env)."""

from __future__ import annotations

import argparse

import pytest

from maumau.cli.env import apply_to_commands, variable
from maumau.cli.main import build_parser, main


def parsed(argv: list[str], environ: dict[str, str]) -> argparse.Namespace:
    parser = build_parser()
    apply_to_commands(parser, environ)
    return parser.parse_args(argv)


def test_a_variable_is_named_after_its_option() -> None:
    assert variable("--public-url") == "MAUMAU_PUBLIC_URL"
    assert variable("--tables-per-minute") == "MAUMAU_TABLES_PER_MINUTE"


def test_serve_takes_its_options_from_the_environment() -> None:
    args = parsed(
        ["serve"],
        {"MAUMAU_PORT": "8123", "MAUMAU_TABLES_PER_MINUTE": "3", "MAUMAU_HOST": "0.0.0.0"},
    )
    assert (args.port, args.tables_per_minute, args.host) == (8123, 3.0, "0.0.0.0")


def test_the_command_line_wins_over_the_environment() -> None:
    args = parsed(["serve", "--port", "9000"], {"MAUMAU_PORT": "8123"})
    assert args.port == 9000


def test_a_repeatable_option_takes_values_separated_by_commas() -> None:
    args = parsed(["serve"], {"MAUMAU_ALLOW_ORIGIN": "https://a.example, https://b.example"})
    assert args.allow_origin == ["https://a.example", "https://b.example"]


def test_other_commands_ignore_the_environment() -> None:
    args = parsed(["rules", "--preset", "standard"], {"MAUMAU_PRESET": "penalty-100"})
    assert args.preset == "standard"
    args = parsed(["rules"], {"MAUMAU_PRESET": "penalty-100"})
    assert args.preset is None


def test_a_wrong_value_is_refused_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MAUMAU_PORT", "eighty")
    assert main(["serve"]) == 2
    err = capsys.readouterr().err
    assert "MAUMAU_PORT" in err and "eighty" in err
    monkeypatch.setenv("MAUMAU_LOG_LEVEL", "loud")
    monkeypatch.delenv("MAUMAU_PORT")
    assert main(["serve"]) == 2
    assert "MAUMAU_LOG_LEVEL: 'loud' is not one of" in capsys.readouterr().err
    # a wrong variable of serve does not stop another command
    assert main(["rules", "--preset", "standard"]) == 0


def test_a_flag_never_comes_from_the_environment() -> None:
    """A setting left in an environment file must never force a restore or skip an
    export: flags are the command line's alone."""
    environ = {"MAUMAU_FORCE": "1", "MAUMAU_NO_EXPORT": "1", "MAUMAU_DRY_RUN": "1"}
    args = parsed(["restore", "--from", "backup.sqlite3"], environ)
    assert args.force is False
    args = parsed(["admin", "purge", "--finished-before", "2026-01-01"], environ)
    assert args.no_export is False and args.dry_run is False


def test_a_repeatable_option_on_the_command_line_replaces_the_environments() -> None:
    environ = {"MAUMAU_TRUSTED_PROXY": "10.0.0.0/8,192.0.2.1"}
    assert parsed(["serve"], environ).trusted_proxy == ["10.0.0.0/8", "192.0.2.1"]
    args = parsed(["serve", "--trusted-proxy", "::1", "--trusted-proxy", "127.0.0.1"], environ)
    assert args.trusted_proxy == ["::1", "127.0.0.1"]


def test_a_new_table_id_never_reads_as_an_option(monkeypatch: pytest.MonkeyPatch) -> None:
    """``maumau admin close ID`` read an id starting with '-' as an option (seen once
    in 64 ids): new ids never start with it."""
    from maumau.server.live import seating

    drawn = iter(["-Ab3xYz0-Ab3xYz0", "Kb3xYz0-Ab3xYz0_"])
    monkeypatch.setattr(seating.secrets, "token_urlsafe", lambda n: next(drawn))
    assert seating.new_game_id() == "Kb3xYz0-Ab3xYz0_"
    args = parsed(["admin", "close", "--", "-Ab3xYz0-Ab3xYz0"], {})
    assert args.game_id == "-Ab3xYz0-Ab3xYz0"


def test_an_unknown_variable_is_refused_naming_the_closest(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A misspelt variable, ignored, left the setting unset: behind a proxy, every
    client shared the proxy's address and its limits."""
    monkeypatch.setenv("MAUMAU_TRUSTED_PROXIES", "127.0.0.1")
    for command in (["serve"], ["backup", "--to", "copy.sqlite3"], ["admin", "tables"]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert "MAUMAU_TRUSTED_PROXIES is no setting" in err
        assert "did you mean MAUMAU_TRUSTED_PROXY?" in err
    monkeypatch.delenv("MAUMAU_TRUSTED_PROXIES")
    monkeypatch.setenv("MAUMAU_ZZZ", "1")
    assert main(["serve"]) == 2
    err = capsys.readouterr().err
    assert "MAUMAU_ZZZ is no setting" in err and "did you mean" not in err
    # a command that takes nothing from the environment is not stopped
    assert main(["rules", "--preset", "standard"]) == 0


def test_a_variable_of_any_operator_command_is_known_to_all() -> None:
    """One environment file serves serve, backup, restore and admin."""
    environ = {"MAUMAU_PUBLIC_URL": "https://cards.example.org", "MAUMAU_DRAIN_SECONDS": "5"}
    # (the test suite's own, MAUMAU_TEST_...: never a command's, never refused)
    environ |= {"MAUMAU_TEST_HYPOTHESIS_PROFILE": "maumau-thorough", "MAUMAU_TEST_E2E_CHILD": "1"}
    args = parsed(["serve"], environ)
    assert args.public_url == "https://cards.example.org"
    assert getattr(args, "environment_error", None) is None
    backup = parsed(["backup", "--to", "copy.sqlite3"], environ)
    assert getattr(backup, "environment_error", None) is None


def test_a_flag_set_in_the_environment_is_refused() -> None:
    args = parsed(["restore", "--from", "backup.sqlite3"], {"MAUMAU_FORCE": "1"})
    assert args.force is False
    assert args.environment_error == (
        "MAUMAU_FORCE: --force is taken from the command line only, never from here"
    )

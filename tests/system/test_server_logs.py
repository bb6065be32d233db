"""The server's log: text by default, one JSON object per line on request, and never a
seat token or a token hash in either."""

from __future__ import annotations

import hashlib
import json
import logging
import sys
from pathlib import Path

import pytest

from maumau.server.ops.logs import JsonFormatter, TextFormatter, log_format, redact
from support.live import Server, check_finished, set_up

TOKEN = "Xq3vB_8kz-0aP1wLmN2oQ4rS5tU6vW7xY8zA9bC0dEf"  # as secrets.token_urlsafe(32)


def record(msg: str, *args: object, **extra: object) -> logging.LogRecord:
    made = logging.LogRecord("maumau.server", logging.WARNING, __file__, 1, msg, args, None)
    made.__dict__.update(extra)
    return made


def test_a_json_line_has_time_level_logger_event_and_table() -> None:
    line = json.loads(JsonFormatter().format(record("moved", table="AbC123")))
    assert line["level"] == "warning" and line["logger"] == "maumau.server"
    assert line["event"] == "moved" and line["table"] == "AbC123"
    assert line["time"].endswith("Z") and line["time"][10] == "T"  # ISO 8601, UTC
    # the conventional "table %s" names the table too
    line = json.loads(JsonFormatter().format(record("table %s: a step failed", "Zz9")))
    assert line["table"] == "Zz9" and line["event"] == "table Zz9: a step failed"
    assert "table" not in json.loads(JsonFormatter().format(record("resumed %d", 3)))


def test_an_exception_is_in_its_line() -> None:
    try:
        raise RuntimeError(f"the token was {TOKEN}")
    except RuntimeError:
        made = record("it crashed")
        made.exc_info = sys.exc_info()
    text = JsonFormatter().format(made)
    assert "\n" not in text  # one line
    line = json.loads(text)
    assert "RuntimeError" in line["exception"] and "Traceback" in line["exception"]
    assert TOKEN not in text and "[redacted]" in line["exception"]


def test_tokens_and_hashes_are_redacted_in_both_formats() -> None:
    digest = hashlib.sha256(TOKEN.encode()).hexdigest()
    made = record("hello %s from %s at table %s", TOKEN, digest, "FvXfi8dr1-TjgVeQ")
    for formatter in (JsonFormatter(), TextFormatter()):
        text = formatter.format(made)
        assert TOKEN not in text and digest not in text
        assert "FvXfi8dr1-TjgVeQ" in text  # a table id (16 characters) is kept
    assert redact(f"Bearer {TOKEN}.") == "Bearer [redacted]."
    assert TextFormatter().format(record("plain")) == "WARNING: plain"


def test_the_format_comes_from_the_option_then_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("MAUMAU_LOG_FORMAT", raising=False)
    assert log_format(None) == "text"
    monkeypatch.setenv("MAUMAU_LOG_FORMAT", "JSON")
    assert log_format(None) == "json"
    assert log_format("text") == "text"
    monkeypatch.setenv("MAUMAU_LOG_FORMAT", "xml")
    with pytest.raises(ValueError, match="MAUMAU_LOG_FORMAT: 'xml' is no log format"):
        log_format(None)


def test_a_game_logged_as_json_at_debug_level_shows_no_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every line the server writes is one JSON object; none holds a seat token or a
    token hash, though at debug level every frame is logged (each hello its token)."""
    monkeypatch.setenv("MAUMAU_LOG_FORMAT", "json")
    server = Server(tmp_path / "data")
    server.options = ["--log-level", "debug"]
    server.log = tmp_path / "serve.log"
    server.stdout_too = True  # what it prints at the start is a JSON line too
    server.start()
    try:
        game_id, humans = set_up(server)
        check_finished(server, game_id, humans)
        # a request that carries a token in the URL, as a careless client might
        server.request("GET", f"/api/games/{game_id}?token={humans[0].token}")
    finally:
        server.stop()
    text = server.log.read_text()
    secrets = [h.token for h in humans]
    secrets += [hashlib.sha256(t.encode()).hexdigest() for t in secrets]
    for secret in secrets:
        assert secret not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert {"time", "level", "logger", "event"} <= set(lines[0])
    loggers = {line["logger"] for line in lines}
    assert {"uvicorn.error", "uvicorn.access", "maumau.server", "maumau.serve"} <= loggers
    assert any(line["event"].startswith("games are kept in") for line in lines)
    assert any(line["level"] == "debug" for line in lines)
    access = [line for line in lines if line["logger"] == "uvicorn.access"]
    assert any(line["path"].startswith(f"/api/games/{game_id}") for line in access)
    assert any(line.get("table") == game_id for line in access)
    assert any("[redacted]" in line["event"] for line in lines)

"""The server's log: readable text (the default), or one JSON object per line
(``--log-format json``, or ``MAUMAU_LOG_FORMAT=json``) for a log collector.

Every record goes through one handler on standard error, uvicorn's own too
(``uvicorn.error``, ``uvicorn.access``), and the same formatter.  A JSON line has
``time`` (ISO 8601, UTC), ``level``, ``logger``, ``event`` (the message), ``table``
when the record is about a table (given as ``extra={"table": id}``, or read from a
message that starts with the conventional ``"table %s"``), an access line's
``client``, ``method``, ``path`` and ``status`` (and ``table``, from the path), and
``exception`` when there is one.

No seat token or token hash is ever written: whatever looks like one (a run of 40 or
more URL-safe characters: a token is 43, a hash 64; a table id is 16) is written as
``[redacted]``, in text and in JSON alike, exceptions included (at debug level
websockets logs every frame, each ``hello`` with its token).
"""

from __future__ import annotations

import logging
import re
import sys
from datetime import UTC, datetime
from typing import Any

import orjson

FORMATS = ("text", "json")
#: the environment variable that sets the format when ``--log-format`` is not given
ENVIRONMENT = "MAUMAU_LOG_FORMAT"
TEXT = "%(levelname)s: %(message)s"
REDACTED = "[redacted]"
#: a seat token (43 URL-safe characters), a token hash (64 hex digits) or the like
SECRET = re.compile(r"(?<![A-Za-z0-9_-])(?=[_-]*[A-Za-z0-9])[A-Za-z0-9_-]{40,}(?![A-Za-z0-9_-])")
#: the table a request's path is about: ``/api/games/ID...``, ``/ws/ID``, ``/g/ID``
TABLE_PATH = re.compile(r"/(?:api/games|ws|g)/([A-Za-z0-9_-]{1,32})(?![A-Za-z0-9_-])")
#: uvicorn's loggers, which it would otherwise give handlers of their own
UVICORN = ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi")


def redact(text: str) -> str:
    """``text`` with everything that looks like a token or a hash replaced."""
    return SECRET.sub(REDACTED, text)


def log_format(given: str | None) -> str:
    """The format: ``given`` (``--log-format``), else the environment's, else text.
    A wrong value raises :class:`ValueError` naming where it came from."""
    if given is not None:
        where, value = "--log-format", given
    else:
        where, value = ENVIRONMENT, _environment()
    if value not in FORMATS:
        raise ValueError(f"{where}: {value!r} is no log format; the formats are text, json")
    return value


def _environment() -> str:
    import os

    return os.environ.get(ENVIRONMENT, "text").strip().lower() or "text"


def table_of(record: logging.LogRecord) -> str | None:
    """The table a record is about: its ``table`` extra, else the first argument of a
    message that starts ``"table %s"``."""
    table = getattr(record, "table", None)
    if table is not None:
        return str(table)
    args = record.args
    if isinstance(record.msg, str) and record.msg.startswith("table %") and args:
        first = args[0] if isinstance(args, tuple) else None
        return None if first is None else str(first)
    return None


class TextFormatter(logging.Formatter):
    """``LEVEL: message``, redacted."""

    def __init__(self) -> None:
        super().__init__(TEXT)

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line, redacted."""

    def format(self, record: logging.LogRecord) -> str:
        when = datetime.fromtimestamp(record.created, UTC)
        entry: dict[str, Any] = {
            "time": when.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": redact(record.getMessage()),
        }
        table = table_of(record)
        if table is not None:
            entry["table"] = redact(table)
        if record.name == "uvicorn.access" and isinstance(record.args, tuple):
            entry |= _access(record.args)
        if record.exc_info:
            entry["exception"] = redact(self.formatException(record.exc_info))
        elif record.exc_text:
            entry["exception"] = redact(record.exc_text)
        if record.stack_info:
            entry["stack"] = redact(self.formatStack(record.stack_info))
        return orjson.dumps(entry, default=str).decode()


def _access(args: tuple[Any, ...]) -> dict[str, Any]:
    """An access line's fields (uvicorn logs client, method, path, HTTP version,
    status)."""
    if len(args) != 5:
        return {}
    client, method, path, _, status = args
    path = redact(str(path))
    fields = {"client": str(client), "method": method, "path": path, "status": status}
    table = TABLE_PATH.match(path)
    if table is not None:
        fields["table"] = table[1]
    return fields


def configure(fmt: str, level: str) -> None:
    """Send every record, uvicorn's too, to standard error in ``fmt`` (one of
    :data:`FORMATS`) from ``level`` up.  (uvicorn is then given ``log_config=None``,
    so that it installs no handlers of its own.)"""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    for name in UVICORN:
        logger = logging.getLogger(name)
        for old in logger.handlers[:]:
            logger.removeHandler(old)
        logger.propagate = True

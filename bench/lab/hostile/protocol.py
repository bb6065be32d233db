"""What the protocol says (``docs/protocol.md``) that the probes and the verdicts rely
on: the size limits, the message types and fields, and the documented error codes."""

from __future__ import annotations

import re
from pathlib import Path

from lab.paths import ROOT
from maumau.server.wire.protocol import CLIENT_TYPES

PROTOCOL_DOC = ROOT / "docs" / "protocol.md"

#: the server's WebSocket message limit (ServerConfig.max_message_bytes), and the frame
#: size over which ``maumau serve`` drops the connection (uvicorn's ws_max_size)
MESSAGE_LIMIT = 4096
FRAME_LIMIT = 64 * 1024
#: the HTTP body limit (app.MAX_BODY)
BODY_LIMIT = 64 * 1024

#: the client message types the probes make (the four of play)
TYPES = ("hello", "action", "ping", "ready")
#: every client message type, from the server's one list of them: no unknown type is one
KNOWN_TYPES = CLIENT_TYPES
FIELDS = ("type", "token", "version", "action_id", "action", "seat", "game_id", "code")
ACTION_KEYS = ("seat", "play", "draw", "pass", "catch", "suit", "call")
VERBS = ("play", "draw", "pass", "catch")
NAN_LITERALS = ("NaN", "Infinity", "-Infinity")


def documented_codes(doc: Path = PROTOCOL_DOC) -> dict[str, int | None]:
    """Every error code in the protocol's "Error codes" section, with its HTTP status
    (``None`` for the engine's codes, which have none)."""
    section = doc.read_text().split("## Error codes", 1)[1]
    codes: dict[str, int | None] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        match = re.fullmatch(r"`([a-z_]+)`", cells[0]) if line.startswith("|") else None
        if match:
            status = cells[1] if len(cells) > 2 else ""
            codes[match.group(1)] = int(status) if status.isdigit() else None
    return codes


DOCUMENTED = documented_codes()

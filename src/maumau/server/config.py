"""The server's own settings: where its data lives, and the limits it enforces."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from maumau.store import sqlite_url

#: the browser client, served at ``/``
WEB_DIR = Path(__file__).resolve().parent.parent / "web"


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Everything ``maumau serve`` can set.  Tests and the load tool raise the limits."""

    data_dir: Path = field(default_factory=lambda: Path("maumau-data"))
    #: ``None``: the SQLite file ``maumau.sqlite3`` in the data directory
    database_url: str | None = None
    #: origins whose pages may open WebSockets besides this server's own pages;
    #: ``("*",)``: any.  Connections without an Origin header (non-browser clients) are
    #: always allowed.
    allowed_origins: tuple[str, ...] | None = None
    max_message_bytes: int = 4096
    messages_per_second: float = 20.0
    message_burst: float = 40.0
    #: tables one client address may create per minute
    tables_per_minute: float = 10.0
    #: how often idle tables are looked for, in seconds
    sweep_seconds: float = 10.0
    #: a finished table with nobody connected leaves memory after this many seconds
    #: (it is loaded again when asked for; kept longer, finished tables piled up under
    #: load and made every collection of the cycle collector longer)
    unload_seconds: float = 10.0
    #: messages waiting for one slow client before the server gives up on it
    send_queue: int = 512
    web_dir: Path = WEB_DIR

    @property
    def url(self) -> str:
        if self.database_url:
            return self.database_url
        return sqlite_url(self.data_dir / "maumau.sqlite3")

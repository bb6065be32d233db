"""The server's own settings: where its data lives, and the limits it enforces."""

from __future__ import annotations

import os
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
    #: seconds a WebSocket has to say hello after it opened (then ``hello_timeout``)
    hello_seconds: float = 10.0
    #: WebSockets one client address (an IPv6 client: its /56) may hold open at once
    connections_per_address: int = 64
    #: WebSockets one client address may open per minute (bursts of as many: twice the
    #: ``connections_per_address`` it may hold): a client closed for flooding cannot
    #: come straight back, again and again
    connections_per_minute: float = 120.0
    #: WebSockets one table may have open at once, players and spectators
    connections_per_table: int = 100
    #: HTTP connections one client address may hold open at once (``maumau serve``'s
    #: HTTP protocol; a connection that became a WebSocket counts as a WebSocket)
    http_connections_per_address: int = 128
    #: seconds from a connection's start, or a request's first byte, until the
    #: request's headers are complete (``maumau serve``'s HTTP protocol)
    header_seconds: float = 10.0
    #: seconds from a request's headers until its body is complete (``maumau serve``'s
    #: HTTP protocol; then 408)
    body_seconds: float = 10.0
    #: tables (in the lobby or being played) one client address may have open at once
    #: (then ``POST /api/games`` is refused with ``too_many_live_tables``)
    live_tables_per_address: int = 20
    #: of those, how many may play with no human player connected at once; another
    #: one is paused (see :mod:`maumau.server.live.budget`)
    unattended_tables_per_address: int = 2
    #: the least delay of a computer move at a table with no human player connected
    unattended_bot_delay_ms: int = 500
    #: a table with no human player connected is paused this many seconds after its
    #: last one left (until one connects again)
    unattended_seconds: float = 300.0
    #: worker processes for the ``hard`` bot's search (started on first use)
    bot_workers: int = field(default_factory=lambda: max(1, (os.cpu_count() or 2) - 1))
    #: the share of one worker the ``hard`` decisions of one table may keep busy on
    #: average (worker-seconds a second); past it, its computer moves wait (see
    #: :mod:`maumau.server.live.pool_share`)
    worker_share_per_table: float = 0.25
    #: the same for all the tables one client address created, together
    worker_share_per_address: float = 0.5
    #: requests for records and replays one client address may make per minute
    replays_per_minute: float = 30.0
    #: QR codes of invite links not made yet that one client address may ask for per
    #: minute (:mod:`maumau.server.http.invites`; a code made once is kept and free)
    qr_codes_per_minute: float = 30.0
    #: where other processes share the database: looks into the store for a ``hello``
    #: token this process does not know, that one client address may cost per minute
    #: (a token found gives its look back; past them, ``rate_limited``)
    token_lookups_per_minute: float = 30.0
    #: where other processes share the database: table-info requests of one client
    #: address per minute that first catch up with the store; past them, the answer is
    #: the table as this process knows it (kept current by change notices)
    fresh_reads_per_minute: float = 120.0
    #: the reverse proxies (addresses, networks) whose ``X-Forwarded-For`` and
    #: ``X-Forwarded-Proto`` name the client (:mod:`maumau.server.transport.clients`); their
    #: connections are not capped per address (the proxy's own limits are)
    trusted_proxies: tuple[str, ...] = ()
    #: ``https://host[:port]``: where the links and QR codes the server builds point,
    #: instead of the requests' ``Host``; pages of this origin may open WebSockets
    public_url: str | None = None
    web_dir: Path = WEB_DIR
    #: ``/metrics`` is served on this port of ``metrics_host`` (``None``: nowhere;
    #: 0: a free port); never on the public one
    metrics_port: int | None = None
    metrics_host: str = "127.0.0.1"

    @property
    def url(self) -> str:
        if self.database_url:
            return self.database_url
        return sqlite_url(self.data_dir / "maumau.sqlite3")

"""``maumau serve``: the game server on one command."""

from __future__ import annotations

import argparse
import contextlib
import gc
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import uvicorn

    from maumau.server.config import ServerConfig

from maumau.cli.serve_options import (
    add_budget_arguments,
    add_metrics_arguments,
    add_proxy_arguments,
    budget_settings,
    proxy_settings,
)
from maumau.cli.types import count, positive

log = logging.getLogger("maumau.server")


def add_commands(commands: Any) -> None:
    """Register ``serve`` on the ``maumau`` sub-command parser."""
    serve = commands.add_parser(
        "serve",
        help="run the game server",
        description="Serve the game: tables by link, live play, the web client. By default "
        "it keeps its games in a SQLite file in --data-dir (created on first run).",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on")
    serve.add_argument(
        "--data-dir", type=Path, default=Path("maumau-data"), help="where the SQLite file lives"
    )
    serve.add_argument(
        "--database-url",
        metavar="URL",
        help="sqlite:///FILE or postgresql://USER@HOST:PORT/DB instead of the data directory",
    )
    serve.add_argument(
        "--allow-origin",
        metavar="ORIGIN",
        action="append",
        help="also accept WebSockets from pages of this origin ('*': any); repeatable",
    )
    serve.add_argument(
        "--tables-per-minute",
        type=positive,
        default=10.0,
        metavar="N",
        help="tables one client address may create per minute (default 10)",
    )
    serve.add_argument(
        "--messages-per-second",
        type=positive,
        default=20.0,
        metavar="N",
        help="WebSocket messages one connection may send per second, with bursts of twice "
        "as many (default 20)",
    )
    serve.add_argument(
        "--connections-per-address",
        type=count,
        default=64,
        metavar="N",
        help="WebSockets one client address (IPv6: its /56) may hold open at once (default 64)",
    )
    serve.add_argument(
        "--connections-per-minute",
        type=positive,
        default=120.0,
        metavar="N",
        help="WebSockets one client address may open per minute, with bursts of as many "
        "(default 120: twice the 64 it may hold at once)",
    )
    serve.add_argument(
        "--connections-per-table",
        type=count,
        default=100,
        metavar="N",
        help="WebSockets one table may have open at once, spectators included (default 100)",
    )
    serve.add_argument(
        "--http-connections-per-address",
        type=count,
        default=128,
        metavar="N",
        help="HTTP connections one client address may hold open at once (default 128)",
    )
    serve.add_argument(
        "--header-seconds",
        type=positive,
        default=10.0,
        metavar="S",
        help="seconds a request's headers may take to arrive (default 10)",
    )
    serve.add_argument(
        "--body-seconds",
        type=positive,
        default=10.0,
        metavar="S",
        help="seconds a request's body may take to arrive after its headers (default 10)",
    )
    serve.add_argument(
        "--hello-seconds",
        type=positive,
        default=10.0,
        metavar="S",
        help="seconds a WebSocket has to say hello after it opened (default 10)",
    )
    serve.add_argument(
        "--drain-seconds",
        type=positive,
        default=10.0,
        metavar="S",
        help="on SIGTERM or Ctrl+C: seconds to finish the moves being made and let every "
        "client go, told to reconnect, before what is left is cut (default 10)",
    )
    add_budget_arguments(serve)
    add_proxy_arguments(serve)
    add_metrics_arguments(serve)
    serve.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    serve.add_argument(
        "--log-format",
        choices=["text", "json"],
        default=None,
        help="text (default) or json: one JSON object per line (also MAUMAU_LOG_FORMAT)",
    )
    serve.set_defaults(handler=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    from maumau.server.transport.dependencies import UnsupportedVersion, check

    try:  # (before anything imports uvicorn's internals)
        check()
    except UnsupportedVersion as exc:
        print(f"maumau serve: {exc}", file=sys.stderr)
        return 2
    from maumau.server.app import create_app
    from maumau.server.config import ServerConfig
    from maumau.server.ops.drain import serve
    from maumau.server.ops.logs import configure as configure_logs
    from maumau.server.ops.logs import log_format
    from maumau.store import database_url
    from maumau.store.files import private_directory

    try:
        log_as = log_format(args.log_format)
    except ValueError as exc:
        print(f"maumau serve: {exc}", file=sys.stderr)
        return 2
    if args.database_url:
        try:
            database_url(args.database_url)
        except ValueError as exc:
            print(f"maumau serve: --database-url: {exc}", file=sys.stderr)
            return 2
    try:
        proxies = proxy_settings(args)
    except ValueError as exc:
        print(f"maumau serve: {exc}", file=sys.stderr)
        return 2
    if args.metrics_port is not None:
        from maumau.server.ops.metrics_server import metrics_port_problem

        problem = metrics_port_problem(args.metrics_host, args.metrics_port, args.port)
        if problem is not None:
            print(f"maumau serve: --metrics-port: {problem}", file=sys.stderr)
            return 2
    data_dir: Path = args.data_dir.resolve()
    try:
        private_directory(data_dir)
    except OSError as exc:
        print(f"maumau serve: cannot create the data directory {data_dir}: {exc}", file=sys.stderr)
        return 2
    config = ServerConfig(
        data_dir=data_dir,
        database_url=args.database_url,
        allowed_origins=tuple(args.allow_origin) if args.allow_origin else None,
        tables_per_minute=args.tables_per_minute,
        messages_per_second=args.messages_per_second,
        message_burst=2 * args.messages_per_second,
        hello_seconds=args.hello_seconds,
        connections_per_address=args.connections_per_address,
        connections_per_table=args.connections_per_table,
        connections_per_minute=args.connections_per_minute,
        http_connections_per_address=args.http_connections_per_address,
        header_seconds=args.header_seconds,
        body_seconds=args.body_seconds,
        metrics_port=args.metrics_port,
        metrics_host=args.metrics_host,
        **budget_settings(args),
        **proxies,
    )
    configure_logs(log_as, args.log_level)
    raise_file_limit()
    where = "the database given by --database-url" if args.database_url else str(data_dir)
    host = f"[{args.host}]" if ":" in args.host else args.host
    said = [
        f"games are kept in {where}",
        f"open http://{host}:{args.port}/ (Ctrl+C stops the server)",
    ]
    if config.public_url:
        said.append(f"players open {config.public_url}/ (--public-url)")
    for line in said:
        # (a JSON log stays JSON all through: a journal reads standard output too)
        if log_as == "json":
            logging.getLogger("maumau.serve").info(line)
        else:
            print(f"Mau Mau: {line}", flush=True)
    app = create_app(config)
    config_ = uvicorn_config(app, args.host, args.port, args.log_level, config)

    logging.getLogger("uvicorn.error").addFilter(_ClientFrameNotUtf8())
    tune_gc()
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl+C: a normal stop, as uvicorn.run
        serve(config_, app, args.drain_seconds)
    return 0


#: seconds an idle HTTP connection stays open (uvicorn's default)
KEEP_ALIVE_SECONDS = 5

#: the WebSocket keepalive: a ping every so many seconds, and a connection whose pong
#: has not come this many seconds after its ping is closed; so a client whose signal
#: is gone is noticed within 9 s, and the table told within 10 (uvicorn's 20 + 20 took
#: up to 40), and a slow phone has 5 s to answer (docs/protocol.md, "Lost signal")
PING_SECONDS = 4.0
PONG_SECONDS = 5.0


def uvicorn_config(
    app: Any, host: str, port: int, log_level: str, limits: ServerConfig | None = None
) -> uvicorn.Config:
    """How ``maumau serve`` runs ``app`` on uvicorn; the HTTP connections' limits are
    those of ``limits`` (default: :class:`ServerConfig`'s)."""
    import uvicorn

    from maumau.server.config import ServerConfig
    from maumau.server.transport.framing import WebSocketProtocol
    from maumau.server.transport.http_protocol import http_protocol

    limits = limits or ServerConfig()
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        log_config=None,  # every record through the server's handler (maumau.server.ops.logs)
        ws_max_size=64 * 1024,
        ws_ping_interval=PING_SECONDS,
        ws_ping_timeout=PONG_SECONDS,
        proxy_headers=False,
        # an idle HTTP connection is closed after this; a proxy in front must give up
        # its idle connections sooner (deploy/: 4 s), or it may send a request on one
        # just as it is closed, and nginx then counts the process as failed
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        # uvicorn's httptools protocol, with limits (see http_protocol.py)
        http=http_protocol(
            limits.header_seconds,
            limits.http_connections_per_address,
            limits.trusted_proxies,
            limits.body_seconds,
        ),
        ws=WebSocketProtocol,  # uvicorn's, with our frame writer (see framing.py)
    )


def raise_file_limit() -> None:
    """Raise the soft limit of open files to the hard limit, and log it.

    Every connection is a file descriptor, and a systemd service, like many shells,
    starts with a soft limit of 1,024 (under a hard limit of 524,288 on current
    systemd): a few hundred idle clients used up the server.  Raising the soft limit
    is what a server is meant to do (the hard one is the administrator's)."""
    try:
        import resource
    except ImportError:  # not POSIX
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft >= hard:
        log.info("open files: at most %d (the hard limit)", soft)
        return
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError) as exc:  # macOS refuses RLIM_INFINITY
        log.warning("open files: at most %d; the limit could not be raised: %s", soft, exc)
        return
    log.info("open files: at most %d (raised from %d to the hard limit)", hard, soft)


#: collect the youngest generation after this many net allocations (Python: 700)
GC_YOUNG = 25_000


def tune_gc() -> None:
    """Set the cycle collector for a server that holds every live game in memory.

    Each move makes and drops thousands of small objects.  With Python's default
    thresholds the collector runs hundreds of times a second and every few seconds walks
    all of the games' objects: under load that was 15 to 20% of the server's CPU and
    pauses of up to a few hundred milliseconds (``docs/history/performance-history.md``, "The
    first round" and "The third round").  The objects made while starting are frozen out
    of collections, and the youngest generation is collected after 25,000 allocations;
    cycles are still collected.  A young collection
    walks everything made since the last one that is still alive, so under load its
    pause grows with the threshold, and every pause leaves a backlog of moves: shorter
    pauses every few seconds make a better p99 than longer ones twice as rarely."""
    gc.freeze()
    gc.set_threshold(GC_YOUNG, 20, 100)


class _ClientFrameNotUtf8(logging.Filter):
    """A client's text frame that is not UTF-8 is the client's error, answered by
    closing with 1007; uvicorn logs it as a server error with a traceback, which would
    let any client fill the log with tracebacks.  Logged as a one-line warning."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.getMessage().startswith("Invalid UTF-8 sequence received from client"):
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info = record.exc_text = None
        return True

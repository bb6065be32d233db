"""The options of ``maumau serve`` beyond the basics: the limits on computer play and
live tables, the proxy in front, the metrics port; and the number types they take.

Each may also come from the environment as ``MAUMAU_`` and its name
(:mod:`maumau.cli.env`)."""

from __future__ import annotations

import argparse
from typing import Any

from maumau.cli.types import count, port_number, positive, whole


def add_metrics_arguments(serve: Any) -> None:
    """Where ``/metrics`` is served (docs/metrics.md): nowhere unless asked."""
    serve.add_argument(
        "--metrics-port",
        type=port_number,
        default=None,
        metavar="PORT",
        help="serve Prometheus metrics at /metrics on this port of --metrics-host, not on "
        "the public port (default: no metrics)",
    )
    serve.add_argument(
        "--metrics-host",
        default="127.0.0.1",
        metavar="ADDR",
        help="address of the metrics port (default 127.0.0.1: this machine only)",
    )


def add_budget_arguments(serve: Any) -> None:
    """The limits on computer play, live tables and finished games' documents
    (maumau.server.live.budget, maumau.server.live.archive)."""
    serve.add_argument(
        "--live-tables-per-address",
        type=count,
        default=20,
        metavar="N",
        help="tables (lobby or playing) one client address may have open at once (default 20)",
    )
    serve.add_argument(
        "--unattended-tables-per-address",
        type=whole,
        default=2,
        metavar="N",
        help="of those, how many may play on with no human player connected; the others are "
        "paused (default 2)",
    )
    serve.add_argument(
        "--unattended-bot-delay-ms",
        type=whole,
        default=500,
        metavar="MS",
        help="the least delay of a computer move with no human player connected (default 500)",
    )
    serve.add_argument(
        "--unattended-seconds",
        type=positive,
        default=300.0,
        metavar="S",
        help="a table with no human player connected is paused this long after the last "
        "one left, until one connects (default 300)",
    )
    serve.add_argument(
        "--bot-workers",
        type=count,
        default=None,
        metavar="N",
        help="worker processes for the hard bot's search (default: the cores but one)",
    )
    serve.add_argument(
        "--worker-share-per-table",
        type=positive,
        default=0.25,
        metavar="SHARE",
        help="the part of one worker a table's hard bots may keep busy on average; past "
        "it, its computer moves wait (default 0.25)",
    )
    serve.add_argument(
        "--worker-share-per-address",
        type=positive,
        default=0.5,
        metavar="SHARE",
        help="the same for all the tables one client address created (default 0.5)",
    )
    serve.add_argument(
        "--replays-per-minute",
        type=positive,
        default=30.0,
        metavar="N",
        help="records and replays one client address may ask for per minute (default 30)",
    )
    serve.add_argument(
        "--qr-codes-per-minute",
        type=positive,
        default=30.0,
        metavar="N",
        help="invite QR codes not made yet one client address may ask for per minute (default 30)",
    )


def add_proxy_arguments(serve: Any) -> None:
    """Behind a reverse proxy (maumau.server.transport.clients, deploy/)."""
    serve.add_argument(
        "--trusted-proxy",
        metavar="ADDR|CIDR",
        action="append",
        help="a reverse proxy (address or network, comma-separated or repeated) whose "
        "X-Forwarded-For / X-Forwarded-Proto name the client (default: none)",
    )
    serve.add_argument(
        "--public-url",
        metavar="URL",
        help="https://HOST[:PORT] the site is reached at: the links and QR codes point there "
        "instead of the request's Host",
    )


def proxy_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The ServerConfig fields of :func:`add_proxy_arguments` (from the command line or
    the environment, maumau.cli.env); :class:`ValueError` names the one that is wrong."""
    from maumau.server.transport.clients import networks, public_url

    try:
        proxies = tuple(str(n) for n in networks(args.trusted_proxy or []))
    except ValueError as exc:
        raise ValueError(f"--trusted-proxy (or $MAUMAU_TRUSTED_PROXY): {exc}") from None
    try:
        public = None if args.public_url is None else public_url(args.public_url)
    except ValueError as exc:
        raise ValueError(f"--public-url (or $MAUMAU_PUBLIC_URL): {exc}") from None
    return {"trusted_proxies": proxies, "public_url": public}


def budget_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The ServerConfig fields of :func:`add_budget_arguments`."""
    settings: dict[str, Any] = {
        "live_tables_per_address": args.live_tables_per_address,
        "unattended_tables_per_address": args.unattended_tables_per_address,
        "unattended_bot_delay_ms": args.unattended_bot_delay_ms,
        "unattended_seconds": args.unattended_seconds,
        "worker_share_per_table": args.worker_share_per_table,
        "worker_share_per_address": args.worker_share_per_address,
        "replays_per_minute": args.replays_per_minute,
        "qr_codes_per_minute": args.qr_codes_per_minute,
    }
    if args.bot_workers is not None:
        settings["bot_workers"] = args.bot_workers
    return settings

"""The load tool: its arithmetic, its WebSocket framing, and real runs against a real
``maumau serve`` process (closed loop and offered rate), checked against the
database: every move the tool says the server acknowledged is stored exactly once.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import Frame, Opcode
from websockets.protocol import OPEN, SERVER, Protocol
from websockets.server import ServerProtocol

from lab.ports import free_port
from maumau.cli.main import main
from maumau.loadtest import LoadOptions, run_load
from maumau.loadtest.choice import ActionIds, choose_action, think_mean, think_time
from maumau.loadtest.options import Endpoint
from maumau.loadtest.tally import merge, percentile, summarize
from maumau.loadtest.wire import Deflate, Traffic, WebSocketClient, frame

# --- arithmetic -------------------------------------------------------------------------


def test_percentiles_by_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]  # 1 .. 100
    assert percentile(values, 50) == 50
    assert percentile(values, 95) == 95
    assert percentile(values, 99) == 99
    assert percentile(values, 100) == 100
    assert percentile([7.0], 99) == 7.0
    assert percentile([], 50) is None
    summary = summarize([3.0, 1.0, 2.0, 4.0])
    assert summary == {"count": 4, "mean": 2.5, "p50": 2.0, "p95": 4.0, "p99": 4.0, "max": 4.0}
    assert summarize([])["p99"] is None


def test_think_time_offers_the_rate() -> None:
    # 250 tables, one seat on turn at each: T = 250 / 2000 s
    mean = think_mean(250, 2000.0)
    assert mean == pytest.approx(0.125)
    rng = random.Random(1)
    draws = [think_time(rng, mean) for _ in range(20_000)]
    assert min(draws) >= 0.5 * mean and max(draws) <= 1.5 * mean
    assert sum(draws) / len(draws) == pytest.approx(mean, rel=0.01)
    # so 250 tables each moving every T seconds offer 2000 moves/s
    assert 250 / (sum(draws) / len(draws)) == pytest.approx(2000, rel=0.01)


def test_merge_adds_processes_up() -> None:
    part = {
        "moves": 3,
        "duplicates": 1,
        "latencies": [1.0, 2.0, 3.0],
        "errors": {"stale_version": 1},
        "errors_outside": {},
        "games_started": 1,
        "games_finished": 1,
        "reconnects": 2,
        "resent": 1,
        "setup_ms": [10.0],
        "acked_total": 4,
        "wire": {"bytes": 1000, "messages": 5, "deflated": 4},
    }
    total = merge([part, {**part, "latencies": [4.0], "errors": {"timeout": 2}}])
    assert total["moves"] == 6 and total["reconnects"] == 4 and total["acked_total"] == 8
    assert total["wire"] == {"bytes": 2000, "messages": 10, "deflated": 8}
    assert total["errors"] == {"stale_version": 1, "timeout": 2}
    assert total["latency_ms"]["count"] == 4 and total["latency_ms"]["max"] == 4.0


def test_choose_plays_a_card_when_it_can() -> None:
    rng = random.Random(3)
    jacks = [{"play": "JC", "suit": s} for s in "CDHS"]
    legal = [{"draw": 1}, {"play": "7H"}, *jacks]
    seen = Counter(json.dumps(choose_action(legal, rng), sort_keys=True) for _ in range(4000))
    assert json.dumps({"draw": 1}) not in seen
    # the two cards equally often, a random suit for the Jack
    sevens = seen[json.dumps({"play": "7H"})]
    assert 1700 < sevens < 2300
    assert len(seen) == 5
    # the call that is due comes with the play
    assert choose_action([{"play": "KS", "call": "mau"}, {"draw": 1}], rng) == {
        "play": "KS",
        "call": "mau",
    }
    assert choose_action([{"pass": True}, {"draw": 1}], rng) == {"draw": 1}
    assert choose_action([{"pass": True}], rng) == {"pass": True}
    assert choose_action([{"pass": True}, {"catch": 2}], rng) == {"catch": 2}


def test_action_ids_are_unique_and_short() -> None:
    ids = ActionIds("a1b2c3", 1)
    made = [ids.next() for _ in range(10_000)]
    assert len(set(made)) == len(made)
    assert all(len(i) <= 64 for i in made)
    assert ActionIds("a1b2c3", 2).next() not in made


def test_endpoints() -> None:
    end = Endpoint.parse("http://127.0.0.1:8123/")
    assert (end.host, end.port) == ("127.0.0.1", 8123)
    assert end.ws_url("abc") == "ws://127.0.0.1:8123/ws/abc"
    assert Endpoint.parse("localhost:9").base == "http://localhost:9"
    with pytest.raises(ValueError):
        Endpoint.parse("https://example.org")
    with pytest.raises(ValueError):
        LoadOptions(urls=())


# --- framing ----------------------------------------------------------------------------


def test_frames_read_back_compressed_split_and_long() -> None:
    """Server frames (context takeover, split anywhere, 7-, 16- and 64-bit lengths,
    fragmented) come out as the messages that were sent; client frames are read by
    websockets' own server side."""

    async def play() -> None:
        got: list[bytes] = []
        client = WebSocketClient("ws://h/ws/a", True, got.append, lambda: None)
        client.handshake = None
        client.deflate = Deflate(PerMessageDeflate(False, False, 12, 12))
        server_side = [PerMessageDeflate(False, False, 12, 12)]
        big = json.dumps({"log": [{"seat": n % 4, "play": "7H"} for n in range(9000)]})
        messages = [b'{"type":"ack"}', b'{"type":"state","x":"' + b"y" * 300 + b'"}']
        messages += [big.encode(), b'{"type":"ack"}']
        stream = b"".join(
            Frame(Opcode.TEXT, m).serialize(mask=False, extensions=server_side) for m in messages
        )
        # a message in two frames, compressed as one
        stream += Frame(Opcode.TEXT, b'{"type":', fin=False).serialize(
            mask=False, extensions=server_side
        )
        stream += Frame(Opcode.CONT, b'"state"}').serialize(mask=False, extensions=server_side)
        messages.append(b'{"type":"state"}')
        # a ping is answered
        stream += Frame(Opcode.PING, b"hi").serialize(mask=False)
        for n in range(0, len(stream), 5):
            client.data_received(stream[n : n + 5])
        assert got == messages

        server = Protocol(SERVER, state=OPEN)
        server.extensions = [PerMessageDeflate(False, False, 12, 12)]
        for text in ['{"type":"ready"}', '{"type":"action","version":3}' * 10]:
            payload = client.deflate.deflate(text.encode())
            server.receive_data(frame(0xC1, payload))
            (event,) = server.events_received()
            assert event.data.decode() == text
        plain = Protocol(SERVER, state=OPEN)
        plain.receive_data(frame(0x81, b"x" * 70_000))
        (event,) = plain.events_received()
        assert event.data == b"x" * 70_000

    asyncio.run(play())


def test_traffic_counts_what_the_server_sent_while_counting() -> None:
    """Bytes after the handshake (headers included), whole messages and the compressed
    ones among them; a ping is no message, and nothing counts before ``counting``."""

    async def play() -> None:
        traffic = Traffic()
        client = WebSocketClient("ws://h/ws/a", True, lambda _: None, lambda: None, traffic)
        client.handshake = None
        client.deflate = Deflate(PerMessageDeflate(False, False, 12, 12))
        server_side = [PerMessageDeflate(False, False, 12, 12)]
        compressed = Frame(Opcode.TEXT, b'{"type":"state"}').serialize(
            mask=False, extensions=server_side
        )
        plain = Frame(Opcode.TEXT, b'{"type":"ack"}').serialize(mask=False)
        split = Frame(Opcode.TEXT, b'{"type":', fin=False).serialize(
            mask=False, extensions=server_side
        )
        split += Frame(Opcode.CONT, b'"state"}').serialize(mask=False, extensions=server_side)
        ping = Frame(Opcode.PING, b"hi").serialize(mask=False)
        client.data_received(plain)
        assert traffic.to_json() == {"bytes": 0, "messages": 0, "deflated": 0}
        traffic.counting = True
        stream = compressed + plain + split + ping + plain
        for n in range(0, len(stream), 7):
            client.data_received(stream[n : n + 7])
        assert traffic.to_json() == {"bytes": len(stream), "messages": 4, "deflated": 2}

    asyncio.run(play())


class _Transport:
    """What a client writes, and whether it dropped the connection."""

    def __init__(self) -> None:
        self.written = b""
        self.aborted = False

    def write(self, data: bytes) -> None:
        self.written += data

    def abort(self) -> None:
        self.aborted = True


@pytest.mark.parametrize("gave_up", [False, True])
def test_handshake_answer_after_connect_gave_up_drops_the_connection(gave_up: bool) -> None:
    """An answer that arrives after ``connect`` stopped waiting for it (its timeout, or
    the run ending) drops the connection instead of failing in the event loop."""

    async def play() -> None:
        client = WebSocketClient("ws://h/ws/a", False, lambda _: None, lambda: None)
        transport = _Transport()
        client.connection_made(transport)  # type: ignore[arg-type]
        server = ServerProtocol()
        server.receive_data(transport.written)
        (request,) = server.events_received()
        server.send_response(server.accept(request))
        if gave_up:
            client.opened.cancel()
        client.data_received(b"".join(server.data_to_send()))
        assert transport.aborted is gave_up
        assert (client.handshake is None) is not gave_up
        if not gave_up:
            assert client.opened.done() and client.opened.result() is None

    asyncio.run(play())


# --- against a real server ----------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int, Path]]:
    """``maumau serve`` with the limits the load tool needs; (url, pid, data dir)."""
    data = tmp_path_factory.mktemp("load-server")
    port = free_port()
    command = [sys.executable, "-m", "maumau", "serve", "--port", str(port)]
    command += ["--data-dir", str(data), "--log-level", "warning"]
    command += ["--tables-per-minute", "100000", "--messages-per-second", "1000"]
    command += ["--connections-per-minute", "100000"]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(url + "/api/health", timeout=1) as reply:
                if reply.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("the server did not start")
        time.sleep(0.1)
    try:
        yield url, proc.pid, data
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _check_ledger(ledger: Path, data_dir: Path) -> int:
    """Every acknowledged move in the ledger is stored exactly once, for its seat."""
    lines = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert lines, "the ledger is empty"
    with sqlite3.connect(data_dir / "maumau.sqlite3") as db:
        rows = db.execute(
            "SELECT game_id, client_id, data FROM steps WHERE client_id IS NOT NULL"
        ).fetchall()
    stored = Counter((game, client) for game, client, _ in rows)
    seats = {(game, client): json.loads(data)["seat"] for game, client, data in rows}
    for line in lines:
        assert set(line) == {"game_id", "seat", "action_id", "version"}
        key = (line["game_id"], line["action_id"])
        assert stored[key] == 1, f"{line} is stored {stored[key]} times"
        assert seats[key] == line["seat"]
    assert len({(x["game_id"], x["action_id"]) for x in lines}) == len(lines)
    return len(lines)


@pytest.mark.system
def test_closed_loop_run_from_the_command_line(
    server: tuple[str, int, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, pid, data_dir = server
    ledger, out = tmp_path / "ledger.jsonl", tmp_path / "run.json"
    status = main(
        [
            *("loadtest", "--url", url, "--games", "3", "--players", "4", "--closed"),
            *("--duration", "3", "--warmup", "0.5", "--procs", "2", "--server-pid", str(pid)),
            *("--ledger", str(ledger), "--json", str(out), "--seed", "7"),
        ]
    )
    assert status == 0
    assert "moves/s" in capsys.readouterr().out
    document: dict[str, Any] = json.loads(out.read_text())
    params, results = document["params"], document["results"]
    assert params["games"] == 3 and params["mode"] == "closed" and params["compression"]
    assert results["tables_set_up"] == 3
    assert results["moves"] > 0 and results["moves_per_second"] > 0
    assert results["errors"] == {} and results["errors_outside"] == {}
    latency = results["latency_ms"]
    assert latency["count"] > 0
    assert 0 < latency["p50"] <= latency["p95"] <= latency["p99"] <= latency["max"]
    for key in ("games_finished", "games_per_second", "reconnects", "client_cpu_cores"):
        assert key in results
    server_figures = results["server"]
    assert server_figures["rss_before_bytes"] > 0 and server_figures["rss_end_bytes"] > 0
    assert server_figures["cpu_cores"] is not None and server_figures["cpu_cores"] >= 0
    assert "memory_per_game_bytes" in server_figures
    wire = results["wire"]  # uvicorn compresses every message once deflate is agreed
    assert wire["messages"] > results["moves"] and wire["deflated"] == wire["messages"]
    assert wire["bytes"] > 0
    acked = _check_ledger(ledger, data_dir)
    assert acked >= results["moves"]


@pytest.mark.system
def test_offered_rate_without_compression(server: tuple[str, int, Path], tmp_path: Path) -> None:
    url, _, data_dir = server
    ledger = tmp_path / "ledger.jsonl"
    options = LoadOptions(
        urls=(url,),
        games=2,
        players=4,
        duration=3.0,
        warmup=0.5,
        rate=40.0,
        compression=False,
        procs=1,
        ledger=str(ledger),
        seed=11,
    )
    document = run_load(options)
    results = document["results"]
    assert document["params"]["mode"] == "rate" and results["offered_moves_per_second"] == 40
    assert results["errors"] == {} and results["errors_outside"] == {}
    # think times of 25 ms to 75 ms: about 40 moves/s, never much more
    assert 5 < results["moves_per_second"] <= 60
    assert results["server"] is None  # no --server-pid
    wire = results["wire"]
    assert wire["messages"] > results["moves"] and wire["deflated"] == 0
    assert wire["bytes"] > 100 * wire["messages"]  # a state is several hundred bytes
    _check_ledger(ledger, data_dir)

"""Restarting without a bump: what ``maumau serve`` does on SIGTERM (or Ctrl+C).

1. It stops accepting: the listening sockets are closed first, so that a proxy in
   front of several processes sends new connections to another one at once.
2. No computer move, turn timer or takeover starts here any more; a move being
   committed (a computer's, or a player's holding its table's lock) is finished, and
   acknowledged to its player as usual.
3. Every table is then done here: each connection is sent ``closed``
   (``server_stopping``) after everything it was due, and closed with the WebSocket
   code 1012 (service restart); the clients reconnect (the browser client silently).
   A move that arrives after that is refused, never taken: it was not acknowledged,
   and the client makes it again where it reconnects.  On PostgreSQL the other
   processes are told at once that this process's players left, and play on: their
   computer players and timers run there, and the players reconnecting there continue.
4. It waits for the clients to close, at most ``--drain-seconds`` from the signal in
   all; whatever is still open then is cut, and the process exits (status 0).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from maumau.store import StoreError

if TYPE_CHECKING:
    import uvicorn

    from maumau.server.live.hub import Hub
    from maumau.server.live.referee import Referee
    from maumau.server.transport.admission import Admission

log = logging.getLogger("maumau.server")

#: the default of ``--drain-seconds``
DRAIN_SECONDS = 10.0
#: WebSocket close code "service restart" (RFC 6455, IANA registry): come back soon
SERVICE_RESTART = 1012
GOODBYE = "the server is restarting; reconnect soon"
#: how often the drain looks whether every client has gone
POLL_SECONDS = 0.05


async def drain(
    hub: Hub, admission: Admission, deadline: float, cut: Callable[[], bool] = lambda: False
) -> None:
    """Steps 2 and 3 of the module's, then wait for the clients to close until
    ``deadline`` (the event loop's time) or until ``cut()`` says to stop waiting."""
    loop = asyncio.get_running_loop()
    hub.begin_drain()
    referees = list(hub.referees.values())
    here = [r.table.id for r in referees if r.here()]
    settling = [loop.create_task(_settle(r)) for r in referees]
    if settling:
        _, late = await asyncio.wait(settling, timeout=max(0.0, deadline - loop.time()))
        for task in late:  # a commit outlasted the bound: the table is told all the same
            task.cancel()
    for referee in referees:
        _done_here(referee)
    log.info("draining: %d table(s) told to reconnect elsewhere", len(referees))
    if here and hub.store.shared:  # the other processes: these players left
        with contextlib.suppress(StoreError):
            await asyncio.wait_for(
                hub.store.announce([(g, []) for g in here]), max(0.1, deadline - loop.time())
            )
    while admission.greeted > 0 and loop.time() < deadline and not cut():
        await asyncio.sleep(POLL_SECONDS)
    if admission.greeted > 0:
        log.warning("draining: %d connection(s) still open are cut", admission.greeted)


async def _settle(referee: Referee) -> None:
    """Let the move being made at this table be committed, then be done with it."""
    await referee.stand_in.finish()
    async with referee.table.lock:  # a player's move being committed holds it
        _done_here(referee)


def _done_here(referee: Referee) -> None:
    if referee.stopped:
        return
    referee.stopped = True
    referee.close_all("server_stopping", GOODBYE, SERVICE_RESTART)


def serve(config: uvicorn.Config, app: Any, seconds: float = DRAIN_SECONDS) -> None:
    """Run ``app`` on uvicorn until a signal, then drain (see the module) before
    uvicorn's own shutdown cuts what is left and runs the app's shutdown.  (uvicorn is
    imported here, not with the module: the app's modules use its constants.)"""
    import uvicorn

    class DrainingServer(uvicorn.Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + seconds
            for server in self.servers:  # 1: nothing new comes in (again in uvicorn's)
                server.close()
            for sock in sockets or []:
                sock.close()
            log.info("draining: no new connections; at most %g s", seconds)
            state = app.state
            readiness = getattr(state, "readiness", None)
            if readiness is not None:  # a probe on a kept-alive connection: unready
                readiness.stopping = True
            hub: Hub | None = getattr(state, "hub", None)
            if hub is not None:
                await drain(hub, state.admission, deadline, lambda: self.force_exit)
            # what is still open (HTTP requests, sockets that never said hello) uvicorn
            # closes, WebSockets with 1012 too, within what is left of the bound
            self.config.timeout_graceful_shutdown = max(1, math.ceil(deadline - loop.time()))
            await super().shutdown(sockets)
            # a stop asked for by a signal, done in good order, is a normal exit
            # (status 0): uvicorn would raise the signal again once the server is down
            self._captured_signals.clear()

    DrainingServer(config).run()

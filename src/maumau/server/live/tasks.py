"""Work a referee starts and must not abandon, or leaves to run on its own."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable
from typing import TypeVar

log = logging.getLogger("maumau.server")

T = TypeVar("T")


async def unbroken(work: Awaitable[T]) -> T:
    """Await ``work`` (a store write) to its end even if the awaiting task is cancelled
    (its client went away): a write is never abandoned halfway.  The cancellation is
    passed on once the write has finished."""
    task = asyncio.ensure_future(work)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(asyncio.shield(task), 30)
        raise


def quiet(task: asyncio.Task[None]) -> None:
    """A presence notice that could not be sent is sent again with the next heartbeat."""
    if not task.cancelled() and task.exception() is not None:
        log.debug("a presence notice was not sent: %s", task.exception())

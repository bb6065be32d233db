"""Catching up with other server processes: at most one catch-up of a table at a time.

Another process that changes a shared table (PostgreSQL) says so in a change notice;
the table then reads what it missed.  Notices that come while a catch-up runs are
caught by the next one, so a burst of notices costs a read or two, not one each.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger("maumau.server")


class Follower:
    """Runs ``catch_up(table_too)`` (which takes the table's lock itself) after
    change notices of table ``table_id``."""

    def __init__(self, table_id: str, catch_up: Callable[[bool], Awaitable[None]]) -> None:
        self._table_id = table_id
        self._catch_up = catch_up
        self._behind = self._behind_table = False
        self._task: asyncio.Task[None] | None = None

    def follow(self, steps_only: bool = False) -> None:
        """Another process changed the table: catch up soon.  When only steps were
        added, only the steps are read."""
        self._behind = True
        self._behind_table = self._behind_table or not steps_only
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while self._behind:
            table_too, self._behind, self._behind_table = self._behind_table, False, False
            try:
                await self._catch_up(table_too)
            except ReferenceError:  # the table left memory: nothing to catch up with
                return
            except Exception:
                log.exception(
                    "table %s: could not catch up with another process",
                    self._table_id,
                    extra={"table": self._table_id},
                )

"""The store's write transactions, run whole on SQLite's writer thread.

Each write method of the store is written once, as a coroutine over an
``AsyncConnection`` (that is how it runs on PostgreSQL).  On SQLite the method is
called as usual, but its coroutine is handed to the writer thread
(:class:`maumau.store.appender.SqliteAppender`) and driven there to its end in one go:
its connection is a synchronous one behind the same ``execute`` (:class:`Immediate`),
so no ``await`` in it ever has to wait.  One hand-over per transaction, instead of one
per statement (see :mod:`maumau.store.appender` for why that matters).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, Protocol, TypeVar

from sqlalchemy.engine import Connection, Dialect, Result

if TYPE_CHECKING:
    from maumau.store.appender import SqliteAppender

T = TypeVar("T")
P = ParamSpec("P")
S = TypeVar("S", bound="HasWriterThread")


class HasWriterThread(Protocol):
    #: SQLite's writer thread (``None`` on PostgreSQL)
    _appender: SqliteAppender | None


def on_writer_thread(
    method: Callable[Concatenate[S, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[S, P], Coroutine[Any, Any, T]]:
    """A method that is one write transaction: on SQLite it runs whole on the writer
    thread; elsewhere, where it is called."""

    async def run(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
        work = method(self, *args, **kwargs)
        if self._appender is None:
            return await work
        return await self._appender.run(lambda: finish(work))

    run.__name__, run.__qualname__ = method.__name__, method.__qualname__
    run.__doc__ = method.__doc__
    return run


def finish(work: Coroutine[Any, Any, T]) -> T:
    """Run ``work`` to its end without an event loop: nothing in it may wait."""
    try:
        waits_for = work.send(None)
    except StopIteration as done:
        result: T = done.value
        return result
    work.close()
    raise RuntimeError(f"a write transaction waited for {waits_for!r} on the writer thread")


class Immediate:
    """An ``AsyncConnection``'s ``execute`` over a synchronous connection: awaiting it
    runs the statement at once."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    @property
    def dialect(self) -> Dialect:
        """The database's dialect, as ``AsyncConnection.dialect`` (for upserts)."""
        return self.conn.dialect

    async def execute(self, statement: Any, parameters: Any = None) -> Result[Any]:
        return self.conn.execute(statement, parameters)

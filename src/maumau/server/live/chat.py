"""A table's reactions and chat (docs/protocol.md, "Chat and reactions").

Reactions are a few known keys (the client translates them), shown at the sender's
seat; anybody at the table may send them, spectators too unless the host turned their
reactions off, and they are not kept.
Chat lines are plain text by the rules of display names (:func:`names.plain_text`),
at most :data:`MAX_TEXT` characters, kept with the table (its last :data:`KEEP` lines,
so a reload shows them; written in batches, :mod:`maumau.store.chat_buffer`) and never
in the game record.  The host may turn chat off, may let spectators chat (by default
players chat, spectators do not), and may turn spectators' reactions off.  Lines and
reactions are rate-limited per person (:mod:`maumau.server.live.chat_budget`), on top of the
limit on all of a connection's messages.
On PostgreSQL every line, reaction and change of the settings reaches the players of
the other server processes through a notice (:mod:`maumau.store.chat`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from typing import TYPE_CHECKING, Protocol

from pydantic import ValidationError

from maumau.server.live.chat_budget import ChatBudget
from maumau.server.live.table import Table
from maumau.server.transport.connection import Connection
from maumau.server.wire.errors import ServerError, store_unavailable
from maumau.server.wire.model import Model
from maumau.server.wire.names import plain_text
from maumau.server.wire.table_talk import ChatHistory, ChatLine, ChatOptions, ChatSaid, Reaction
from maumau.store import Store, StoreError
from maumau.store import chat as chat_store
from maumau.store.chat import ChatRow, ChatSettingsRow

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncConnection

log = logging.getLogger("maumau.server")

#: the reactions a client may send: phrases and pictures, each drawn by the client
REACTIONS = (
    "nice",
    "ouch",
    "wow",
    "gg",
    "oops",
    "hurry",
    "thumbs",
    "laugh",
    "cry",
    "fire",
    "star",
    "heart",
)
#: the most characters (code points, after normalisation) of a chat line
MAX_TEXT = 200
#: the lines kept per table (older ones are pruned)
KEEP = 50


def line_of(row: ChatRow) -> ChatLine:
    return ChatLine(id=row.id, seat=row.seat, name=row.name, text=row.text, at=row.created_at)


class ChatHost(Protocol):
    """What a chat room needs of its table's referee
    (:class:`maumau.server.live.referee.Referee`, which owns it)."""

    table: Table
    store: Store

    def broadcast(self, message: Model) -> None: ...


class ChatRoom:
    """The chat of one live table (its referee's)."""

    def __init__(self, referee: ChatHost) -> None:
        self.referee = referee
        #: what the host allows, once read from the store
        self.settings: ChatSettingsRow | None = None
        #: the last lines, oldest first, once read from the store
        self.lines: deque[ChatLine] = deque(maxlen=KEEP)
        self.loaded = False
        self._loading = asyncio.Lock()
        #: the settings heard from another process while they were being read
        self._heard: ChatSettingsRow | None = None
        #: what each person may send (maumau.server.live.chat_budget)
        self.budget = ChatBudget()

    # --- reading ------------------------------------------------------------------------

    async def load(self) -> ChatSettingsRow:
        """The settings, reading them and the last lines from the store the first time."""
        if self.settings is not None and self.loaded:
            return self.settings
        async with self._loading:
            if self.settings is None or not self.loaded:
                table_id = self.referee.table.id

                async def read(conn: AsyncConnection) -> tuple[ChatSettingsRow, list[ChatRow]]:
                    chosen = await chat_store.settings(conn, table_id)
                    return chosen, await chat_store.lines(conn, table_id, KEEP)

                self._heard = None
                # (first: a line written meanwhile is in one of the two)
                waiting = self.referee.store.chat.waiting(table_id)
                try:
                    chosen, rows = await self.referee.store.read(read)
                except StoreError as exc:
                    raise store_unavailable("the chat cannot be read", exc) from None
                heard = {line.id: line for line in self.lines}
                merged = {row.id: line_of(row) for row in rows + waiting} | heard
                self.lines = deque((merged[i] for i in sorted(merged)), maxlen=KEEP)
                self.settings = self._heard or chosen
                self.loaded = True
            assert self.settings is not None
            return self.settings

    def missed(self) -> None:
        """Notices may have been missed (the listener was away): the settings and lines
        are read again when next needed."""
        self.loaded = False

    def new(self) -> None:
        """A new table: its chat is empty, with the default settings (nothing to read)."""
        self.settings, self.loaded = ChatSettingsRow(), True

    async def preload(self) -> None:
        """Read the chat as the table is loaded (if the store cannot be read now, it is
        read when it is first needed)."""
        try:
            await self.load()
        except ServerError as exc:
            log.warning("table %s: %s", self.referee.table.id, exc.message)

    async def greet(self, conn: Connection) -> None:
        """After ``welcome``: the last lines and the settings, unless the chat is as a
        new table's (no line, the default settings: a client starts from that), or the
        store cannot be read now (the chat is read again with the next line)."""
        try:
            settings = await self.load()
        except ServerError as exc:
            log.warning("table %s: %s", self.referee.table.id, exc.message)
            return
        if not self.lines and settings == ChatSettingsRow():
            return
        conn.send(
            ChatHistory(
                chat=settings.chat,
                spectators=settings.spectators,
                spectator_reactions=settings.spectator_reactions,
                lines=list(self.lines),
            )
        )

    # --- what clients send --------------------------------------------------------------

    async def say(self, conn: Connection, raw: str) -> None:
        """A chat line from ``conn``: checked, stored, then sent to everyone."""
        settings = await self.load()
        seat = conn.seat
        if not settings.chat:
            raise ServerError("chat_off", "the host has turned the chat off at this table")
        if seat is None and not settings.spectators:
            raise ServerError("chat_off", "spectators may not chat at this table")
        words = plain_text(raw, MAX_TEXT, "bad_chat", "chat")
        self.budget.line(conn)
        table = self.referee.table
        name = table.seats[seat].name if seat is not None and seat < len(table.seats) else None
        now = time.time()

        def notice(row: ChatRow) -> str:
            return ChatSaid(line=line_of(row)).model_dump_json()

        try:  # (written with the next batch; see maumau.store.chat_buffer)
            row = await self.referee.store.chat.add(table.id, seat, name, words, now, KEEP, notice)
        except StoreError as exc:
            raise store_unavailable("the chat line cannot be stored", exc) from None
        self._tell(ChatSaid(line=line_of(row)))

    async def react(self, conn: Connection, key: str) -> None:
        """A reaction from ``conn``: sent to everyone (it is not kept)."""
        if key not in REACTIONS:
            raise ServerError(
                "unknown_reaction",
                f"unknown reaction {key!r}; the reactions are " + ", ".join(REACTIONS),
            )
        settings = await self.load()
        if conn.seat is None and not settings.spectator_reactions:
            raise ServerError("chat_off", "the host has turned spectators' reactions off here")
        self.budget.reaction(conn)
        reaction = Reaction(seat=conn.seat, key=key)
        self._tell(reaction)
        await self._elsewhere(reaction)

    async def choose(
        self, conn: Connection, chat: bool, spectators: bool, reactions: bool | None
    ) -> None:
        """The host's settings for the chat (``reactions``: the spectators'; ``None``:
        as they are)."""
        table = self.referee.table
        if conn.seat is None or conn.seat != table.host:
            raise ServerError("not_host", "only the host may turn the chat on or off")
        settings = await self.load()
        if reactions is None:
            reactions = settings.spectator_reactions
        chosen = ChatSettingsRow(chat, spectators, reactions)
        store = self.referee.store
        options = ChatOptions(chat=chat, spectators=spectators, spectator_reactions=reactions)

        async def write(db: AsyncConnection) -> None:
            await chat_store.set_settings(db, table.id, chosen)
            if store.shared:
                await chat_store.notify(db, store.origin, table.id, options.model_dump_json())

        try:
            await store.write(write)
        except StoreError as exc:
            raise store_unavailable("the chat settings cannot be stored", exc) from None
        self.settings = chosen
        self._tell(options)

    # --- other processes ----------------------------------------------------------------

    def heard(self, text: str) -> None:
        """A line, reaction or settings change made at another process (PostgreSQL)."""
        try:
            data = json.loads(text)
            kind = data.get("type") if isinstance(data, dict) else None
            if kind == "chat_line":
                said = ChatSaid.model_validate(data)
                if any(line.id == said.line.id for line in self.lines):
                    return
                self._tell(said)
            elif kind == "reaction":
                self._tell(Reaction.model_validate(data))
            elif kind == "chat_options":
                options = ChatOptions.model_validate(data)
                self.settings = self._heard = ChatSettingsRow(
                    options.chat, options.spectators, options.spectator_reactions
                )
                self._tell(options)
        except (ValueError, ValidationError):
            log.warning("table %s: an unreadable chat notice was ignored", self.referee.table.id)

    async def _elsewhere(self, message: Model) -> None:
        store = self.referee.store
        if not store.shared:
            return
        table_id, text = self.referee.table.id, message.model_dump_json()

        async def send(db: AsyncConnection) -> None:
            await chat_store.notify(db, store.origin, table_id, text)

        try:
            await store.read(send)
        except StoreError as exc:
            log.debug("table %s: a reaction reached no other process: %s", table_id, exc)

    def _tell(self, message: Model) -> None:
        if isinstance(message, ChatSaid):
            self.lines.append(message.line)
        self.referee.broadcast(message)

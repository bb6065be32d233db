"""The seat hijack: on a lobby table of its own, a stranger claims two seats, removes
the first and says ``hello`` with the second's token at once (with no wait), round
after round, claiming again each time; and the accident: the host removes a seat while
another player's tab reconnects.  In the last round the host starts the game at the
same moment.

Before the fix a ``hello`` found its token's position, then joined it after the removal
had moved the seats down: the connection held a position that was now somebody else's
(or, once re-claimed, a stranger's seat), and was sent that seat's hand.

The gate: every ``welcome`` is the seat the token holds (each ``lobby`` after it names
the tab's player in that seat, and so does ``GET /api/games/{id}`` after each round),
every ``state`` is the welcomed seat's and shows that seat's hand, a removed seat's tab
gets ``closed`` (``seat_removed``) and its token is answered ``seat_removed``, and
``POST /start`` never answers 5xx.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from lab.hostile.attacks import HOST, STRANGER, Part, Tab, Target, bearer, http_client

if TYPE_CHECKING:
    import httpx

GATE = (
    "every welcome the token's seat, no state of another seat, removed tabs told "
    "seat_removed, POST /start never 5xx"
)


def seat_problems(messages: Sequence[Mapping[str, Any]], name: str) -> list[str]:
    """What in one tab's messages shows it a seat other than its token's (``name``'s):
    a ``lobby`` after a ``welcome`` that names someone else in the welcomed seat, a
    ``state`` of another seat than the welcomed one, a welcome that is not a player's,
    anything after ``closed``."""
    seat: int | None = None
    problems: list[str] = []
    closed = False
    for i, message in enumerate(messages):
        kind = message.get("type")
        if closed:
            problems.append(f"message {i}: {kind} after closed")
        elif kind == "welcome":
            seat = message.get("seat")
            if message.get("role") != "player" or not isinstance(seat, int):
                problems.append(f"message {i}: welcome as {message.get('role')}, seat {seat}")
        elif kind == "lobby" and seat is not None:
            seats = message["game"]["seats"]
            holder = seats[seat]["name"] if 0 <= seat < len(seats) else None
            if holder != name:
                problems.append(f"message {i}: lobby has {holder!r} in seat {seat}, not {name!r}")
        elif kind == "state":
            shown = message["view"]["seat"]
            if shown != seat:
                problems.append(f"message {i}: a state of seat {shown}, welcomed as {seat}")
        elif kind == "closed":
            closed = True
    return problems


def last_seat(tab: Tab) -> int | None:
    welcomes = tab.of_type("welcome")
    seat = welcomes[-1].get("seat") if welcomes else None
    return seat if isinstance(seat, int) else None


class Hijack:
    """The table, its host and the stranger, and every tab they opened."""

    def __init__(
        self, target: Target, part: Part, host: httpx.AsyncClient, stranger: httpx.AsyncClient
    ) -> None:
        self.target = target
        self.part = part
        self.host = host
        self.stranger = stranger
        self.game_id = ""
        self.host_token = ""
        self.max_seats = 0
        #: tabs of seated players, in seat order as the campaign last saw it
        self.tabs: list[Tab] = []
        #: tabs that are over (removed, or closed by their player), judged at the end
        self.ended: list[Tab] = []
        self.counts: Counter[str] = Counter()
        self.start_replies: Counter[str] = Counter()

    @property
    def url(self) -> str:
        return f"{self.target.ws_base}/ws/{self.game_id}"

    async def setup(self) -> None:
        settings = {"grace_seconds": None, "next_round_seconds": 600, "bot_delay_ms": 0}
        body = {"name": "Hijack host", "preset": "standard", "settings": settings}
        reply = await self.host.post("/api/games", json=body)
        self.part.note(reply)
        reply.raise_for_status()
        self.game_id, self.host_token = reply.json()["game_id"], reply.json()["token"]
        self.max_seats = (await self.info())["max_seats"]
        tab = await Tab.open(self.url, HOST, "Hijack host", self.host_token)
        await tab.hello()
        self.tabs.append(tab)
        await self.settle([])

    async def info(self) -> dict[str, Any]:
        reply = await self.host.get(f"/api/games/{self.game_id}")
        self.part.note(reply)
        info: dict[str, Any] = reply.json()
        return info

    async def claim(self, name: str) -> str:
        reply = await self.stranger.post(f"/api/games/{self.game_id}/seats", json={"name": name})
        self.part.note(reply)
        reply.raise_for_status()
        token: str = reply.json()["token"]
        return token

    async def remove(self, client: httpx.AsyncClient, position: int, token: str) -> int:
        reply = await client.delete(
            f"/api/games/{self.game_id}/seats/{position}", headers=bearer(token)
        )
        self.part.note(reply, ("game_started",), must_refuse=False)
        return reply.status_code

    async def start(self, token: str, expect: tuple[str, ...]) -> int:
        reply = await self.stranger.post(f"/api/games/{self.game_id}/start", headers=bearer(token))
        self.part.note(reply, expect)
        self.start_replies[str(reply.status_code)] += 1
        return reply.status_code

    async def host_start(self) -> int:
        reply = await self.host.post(
            f"/api/games/{self.game_id}/start", headers=bearer(self.host_token)
        )
        self.part.note(reply)
        self.start_replies[f"host {reply.status_code}"] += 1
        return reply.status_code

    async def settle(self, gone: list[Tab]) -> list[str]:
        """After a round: every live tab told the table as it is now, every removed
        one closed; each tab's last welcome must be the seat its player's name has in
        ``GET /api/games/{id}``.  The seat names."""
        info = await self.info()
        names = [s["name"] for s in info["seats"]]

        def told(tab: Tab) -> bool:
            lobbies = tab.of_type("lobby")
            return bool(lobbies) and [s["name"] for s in lobbies[-1]["game"]["seats"]] == names

        for tab in gone:
            if not await tab.wait(lambda t: t.done.is_set()):
                self.part.fail("a removed seat's tab stayed open", name=tab.name)
            if tab.closed_code() == "seat_removed":
                self.counts["removed tabs told seat_removed"] += 1
            else:
                self.part.fail("a removed seat's tab was not told seat_removed", name=tab.name)
            self.counts["seats removed"] += 1
            self.tabs.remove(tab)
            self.ended.append(tab)
        for tab in self.tabs:
            if not await tab.wait(told):
                self.part.fail("a tab was not told the table", name=tab.name, seats=names)
            seat = last_seat(tab)
            self.counts["welcomes checked against the table"] += 1
            if seat is None or seat >= len(names) or names[seat] != tab.name:
                self.counts["hijacks"] += 1
                self.part.fail("a tab's welcome is not its token's seat", name=tab.name, seat=seat)
        self.tabs.sort(key=lambda t: names.index(t.name) if t.name in names else len(names))
        return names

    async def removed_token(self, token: str) -> None:
        """A removed seat's token: ``hello`` and ``POST /start`` are ``seat_removed``."""
        tab = await Tab.open(self.url, STRANGER, token=token)
        await tab.hello()
        await tab.wait(lambda t: bool(t.of_type("error") or t.of_type("welcome")))
        errors = tab.of_type("error")
        if errors and errors[0].get("code") == "seat_removed":
            self.counts["removed tokens answered seat_removed"] += 1
        else:
            self.part.fail("a removed seat's token was not refused", got=tab.messages[:2])
        await tab.close()
        await self.start(token, ("seat_removed",))

    async def stranger_round(self, r: int, with_start: bool) -> None:
        """Claim two seats, remove the first and hello with the second at once."""
        first, second = f"S{r} first", f"S{r} second"
        token_a, token_b = await self.claim(first), await self.claim(second)
        names = [s["name"] for s in (await self.info())["seats"]]
        position = names.index(first)
        tab_a = await Tab.open(self.url, STRANGER, first, token_a)
        await tab_a.hello()
        await tab_a.wait(lambda t: bool(t.of_type("welcome")))
        self.tabs.append(tab_a)
        tab_b = await Tab.open(self.url, STRANGER, second, token_b)
        self.tabs.append(tab_b)
        moves = [
            self.remove(self.stranger, position, token_a),
            tab_b.hello(),
            self.start(token_b, ("not_host",)),
            self.start(token_a, ("not_host", "seat_removed")),
        ]
        if with_start:
            moves.append(self.host_start())
        results = await asyncio.gather(*moves)
        removed = results[0] == 204
        self.counts["stranger rounds"] += 1
        await self.settle([tab_a] if removed else [])
        if removed:
            await self.removed_token(token_a)

    async def accident_round(self) -> bool:
        """The host removes the first stranger's seat while a later one's tab
        reconnects.  ``False`` if there are not two to do it with."""
        if len(self.tabs) < 3:
            return False
        victim, mover = self.tabs[1], self.tabs[-1]
        names = [s["name"] for s in (await self.info())["seats"]]
        await mover.close()
        self.tabs.remove(mover)
        self.ended.append(mover)
        again = await Tab.open(self.url, STRANGER, mover.name, mover.token)
        self.tabs.append(again)
        await asyncio.gather(
            self.remove(self.host, names.index(victim.name), self.host_token), again.hello()
        )
        self.counts["accident rounds"] += 1
        await self.settle([victim])
        return True

    async def check_hands(self) -> None:
        """After the start: every tab's states are its seat's, and show the hand a
        fresh connection with its token is shown (nobody moves: no bots, no timers)."""
        for tab in self.tabs:
            if not await tab.wait(lambda t: bool(t.of_type("state"))):
                self.part.fail("a tab got no state after the start", name=tab.name)
                continue
            address = HOST if tab.token == self.host_token else STRANGER
            fresh = await Tab.open(self.url, address, token=tab.token)
            await fresh.hello()
            await fresh.wait(lambda t: bool(t.of_type("state")))
            states = fresh.of_type("state")
            await fresh.close()
            if not states:
                self.part.fail("a fresh hello got no state", name=tab.name)
                continue
            own = states[0]["view"]
            for state in tab.of_type("state"):
                self.counts["states checked"] += 1
                view = state["view"]
                if view["seat"] != own["seat"] or view["hand"] != own["hand"]:
                    self.counts["states of another seat"] += 1
                    self.part.fail(
                        "a state shows another seat", name=tab.name, seat=view["seat"], own=own
                    )


async def seat_hijack(target: Target, rounds: int) -> Part:
    part = Part("seat hijack", GATE)
    async with http_client(target, HOST) as host, http_client(target, STRANGER) as stranger:
        table = Hijack(target, part, host, stranger)
        await table.setup()
        try:
            for r in range(rounds):
                last = r == rounds - 1
                full = len(table.tabs) + 2 > table.max_seats
                if not last and (full or r % 4 == 3) and await table.accident_round():
                    continue
                await table.stranger_round(r, with_start=last)
            await table.check_hands()
        finally:
            for tab in table.tabs:
                await tab.close()
        problems = 0
        for tab in [*table.tabs, *table.ended]:
            for problem in seat_problems(tab.messages, tab.name):
                problems += 1
                part.fail("a tab was shown another seat", name=tab.name, problem=problem)
        counts = table.counts
        welcomes = sum(len(t.of_type("welcome")) for t in [*table.tabs, *table.ended])
        part.figures = {
            "table": table.game_id,
            "rounds": rounds,
            **dict(counts),
            "welcomes": welcomes,
            "messages naming another seat": problems,
            "POST /start replies": dict(table.start_replies),
        }
        removed = counts["seats removed"]
        part.passed = (
            not part.failures
            and counts["hijacks"] == 0
            and problems == 0
            and counts["states of another seat"] == 0
            and counts["states checked"] > 0
            and counts["removed tabs told seat_removed"] == removed > 0
            and part.http_5xx == 0
        )
        part.headline = (
            f"{rounds} rounds ({counts['stranger rounds']} stranger, {counts['accident rounds']} "
            f"accident): {counts['hijacks'] + problems} hijacks, "
            f"{counts['states of another seat']} of {counts['states checked']} states another "
            f"seat's, {counts['removed tabs told seat_removed']}/{removed} removed tabs told "
            f"seat_removed, POST /start {dict(table.start_replies)}"
        )
    return part

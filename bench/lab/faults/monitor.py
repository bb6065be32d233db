"""Watching the run: acknowledged moves once a second and, on PostgreSQL, sessions that
wait for a lock or sit idle inside a transaction."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from pathlib import Path
from typing import Any

from lab.faults.servers import clock

PG_ACTIVITY = """
SELECT count(*) FILTER (WHERE state = 'idle in transaction') AS idle_in_tx,
       coalesce(max(extract(epoch FROM now() - xact_start))
                FILTER (WHERE state = 'idle in transaction'), 0) AS idle_in_tx_s,
       count(*) FILTER (WHERE wait_event_type = 'Lock') AS lock_waits,
       coalesce(max(extract(epoch FROM now() - query_start))
                FILTER (WHERE wait_event_type = 'Lock'), 0) AS lock_wait_s,
       string_agg(left(query, 80), ' | ') FILTER (WHERE wait_event_type = 'Lock'
                                                  OR state = 'idle in transaction') AS stuck
FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()
"""


class Monitor:
    """Samples the run once a second in a thread: acknowledged moves (the ledger's
    lines) and, on PostgreSQL, sessions that wait for a lock or sit idle inside a
    transaction (a write that never ends would stall its server)."""

    def __init__(self, ledger: Path, pg_url: str | None = None) -> None:
        self.ledger = ledger
        self.pg_url = pg_url
        self.samples: list[dict[str, Any]] = []
        self.stuck: list[str] = []
        self._offset = 0
        self._lines = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._began = clock()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)

    def _count(self) -> int:
        with contextlib.suppress(OSError), open(self.ledger, "rb") as handle:
            handle.seek(self._offset)
            data = handle.read()
            end = data.rfind(b"\n") + 1
            self._lines += data.count(b"\n", 0, end)
            self._offset += end
        return self._lines

    def _activity(self) -> dict[str, Any] | None:
        if self.pg_url is None:
            return None
        url = self.pg_url

        async def query() -> dict[str, Any]:
            import asyncpg

            conn = await asyncpg.connect(url, timeout=2)
            try:
                row = await conn.fetchrow(PG_ACTIVITY, url.rsplit("/", 1)[1])
            finally:
                await conn.close()
            return dict(row)

        try:
            return asyncio.run(query())
        except Exception:
            return None  # PostgreSQL is stopped (or starting)

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            sample: dict[str, Any] = {"t": round(clock() - self._began, 1), "acked": self._count()}
            activity = self._activity()
            if activity is not None:
                stuck = activity.pop("stuck")
                sample.update({k: round(float(v), 1) for k, v in activity.items()})
                if stuck and activity["lock_wait_s"] + activity["idle_in_tx_s"] > 5:
                    self.stuck.append(f"t={sample['t']}: {stuck}")
            self.samples.append(sample)

    def figures(self) -> dict[str, Any]:
        """The longest time without a new acknowledged move, the worst lock wait and
        idle transaction, and the samples themselves."""
        longest = 0.0
        since = 0.0
        last = -1
        for sample in self.samples:
            if sample["acked"] != last:
                last, since = sample["acked"], sample["t"]
            longest = max(longest, sample["t"] - since)
        return {
            "longest_without_acks_s": round(longest, 1),
            "max_lock_wait_s": max((x.get("lock_wait_s", 0) for x in self.samples), default=0),
            "max_idle_in_transaction_s": max(
                (x.get("idle_in_tx_s", 0) for x in self.samples), default=0
            ),
            "stuck_sessions": self.stuck[:20],
            "samples": self.samples,
        }

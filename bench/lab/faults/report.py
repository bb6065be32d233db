"""What a campaign found: its checks, its faults one by one, its figures."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lab.faults.servers import Server


@dataclass
class Report:
    """What one campaign found."""

    name: str
    checks: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)

    def check(self, name: str, ok: bool, detail: str = "") -> bool:
        self.checks.append({"check": name, "ok": bool(ok), "detail": detail})
        return ok

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c["ok"] for c in self.checks)

    def to_json(self) -> dict[str, Any]:
        return {
            "campaign": self.name,
            "ok": self.ok,
            "checks": self.checks,
            "events": self.events,
            "figures": self.figures,
        }


def fault_figures(
    kills: list[dict[str, Any]], servers: list[Server], first_start: float
) -> dict[str, Any]:
    """What both campaigns report of their kills: how many, the restarts, the downtimes."""
    downtimes = [e["downtime_s"] for e in kills]
    return {
        "kills": len(kills),
        "restarts": sum(s.starts - 1 for s in servers),
        "downtime_s": downtimes,
        "downtime_mean_s": round(sum(downtimes) / len(downtimes), 3) if downtimes else None,
        "downtime_max_s": max(downtimes, default=None),
        "first_start_s": round(first_start, 3),
    }

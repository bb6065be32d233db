"""All the WebSocket probe categories together, each its share of the probes."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from lab.hostile.examples import draw_examples
from lab.hostile.messages import Messages
from lab.hostile.near_valid import NEAR_VALID_KINDS, NearValid
from lab.hostile.probes import Probe, outcome
from lab.hostile.sessions import Sessions


class Builder(Messages, Sessions, NearValid):
    """Builds the probe strategies for one campaign's games."""

    def weights(self) -> dict[str, int]:
        weights = {
            "random-json": 18,
            "wrong-types": 12,
            "unknown-type": 6,
            "not-json": 8,
            "binary": 8,
            "oversized": 3,
            "near-valid": 26,
            "hello-bad-token": 6,
            "hello-again": 3,
            "before-hello": 3,
            "spectator-acts": 3,
            "ready": 2,
            "huge-frame": 1,
            "bad-utf8": 1,
        }
        if not self.live:
            del weights["bad-utf8"]
        return weights

    def category(self, name: str) -> st.SearchStrategy[Probe]:
        """The probes of one category (``near-valid:KIND``: one kind of change); those
        the server would accept are left out."""
        name, _, kind = name.partition(":")
        method = getattr(self, name.replace("-", "_"))
        strategy: st.SearchStrategy[Probe] = method(kind) if kind else method()
        return strategy.filter(lambda p: outcome(self.ctx, p) != "accepted")

    def draw_probes(self, count: int, seed: int | None = None) -> list[Probe]:
        """``count`` probes, each category its share by weight (a category with fewer
        distinct probes than its share repeats them), in a mixed order."""
        weights = self.weights()
        total = sum(weights.values())
        shares = {name: max(1, count * weight // total) for name, weight in weights.items()}
        shares["near-valid"] += count - sum(shares.values())
        near = shares.pop("near-valid")  # shared evenly by every kind of change
        for i, kind in enumerate(NEAR_VALID_KINDS):
            shares[f"near-valid:{kind}"] = near // len(NEAR_VALID_KINDS) + (
                i < near % len(NEAR_VALID_KINDS)
            )
        probes: list[Probe] = []
        for i, (name, share) in enumerate(shares.items()):
            if not share:
                continue
            found = draw_examples(self.category(name), share, None if seed is None else seed + i)
            probes += [found[k % len(found)] for k in range(share)]
        order = random.Random(seed or 0)
        order.shuffle(probes)
        return probes

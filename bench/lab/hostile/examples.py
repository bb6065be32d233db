"""hypothesis: drawing many examples of a strategy outside a test."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st


def draw_examples(
    strategy: st.SearchStrategy[Any], count: int, seed: int | None = None
) -> list[Any]:
    """``count`` examples of ``strategy`` (fewer only if it cannot make more); with
    ``seed=None`` derandomized (the same examples every run)."""
    found: list[Any] = []
    config = settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        derandomize=seed is None,
    )

    @config
    @given(strategy)
    def collect(example: Any) -> None:
        found.append(example)

    if seed is not None:
        collect = hypothesis_seed(seed)(collect)
    collect()
    return found

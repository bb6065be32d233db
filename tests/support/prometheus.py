"""Metrics in Prometheus's text format, read with ``prometheus_client``'s own parser."""

from __future__ import annotations

from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

Families = dict[str, Metric]


def parse(text: str) -> Families:
    return {family.name: family for family in text_string_to_metric_families(text)}


def value(families: Families, sample: str, **labels: str) -> float:
    """The value of the sample ``sample`` with exactly ``labels`` (0 if there is none)."""
    for family in families.values():
        for s in family.samples:
            if s.name == sample and s.labels == labels:
                return float(s.value)
    return 0.0

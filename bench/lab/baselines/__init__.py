"""The baselines campaign (``bench/baselines.py``): agent kinds played against each
other with duplicate deals and rotated seats, and the figures with 95% intervals.

- ``agents``: the registry of agent kinds (``random``, ``hard:500``, ``ismcts:1000``).
- ``campaign``: heads-up pairs and 4-seat tables, every deal played once per rotation.
- the statistics (Wilson and bootstrap intervals, Plackett-Luce) are ``maumau.eval.ratings``.
- ``store``: the raw outcomes as JSON lines (``bench/results/baselines.jsonl``).
- ``report``: the ``## Baselines`` section of ``docs/benchmark.md``.
"""

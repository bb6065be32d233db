"""Server under load: the whole server matrix in one run, with its reference points.

Run from the repository root::

    uv run python bench/server.py --quick                     # smoke run: 2 s warm-up, 5 s
    uv run python bench/server.py --json bench/results/server.json   # SQLite and PostgreSQL
    uv run python bench/server.py --ceiling $SHARED/bench/ceiling \\
        --ceiling-python $CEILING_VENV/bin/python --bgio $SHARED/bench/bgio-peer \\
        --json bench/results/server.json                      # everything

It starts every server itself, runs ``maumau loadtest`` (a subprocess: its own client
processes) against it, and prints one table.  Every cell gets a fresh server:

- **sqlite**: one ``python -m maumau serve`` process on a fresh data directory (SQLite,
  WAL, ``synchronous=FULL``: every move durable before it is broadcast), ``--games``
  tables x 4 seats, preset ``--preset``; closed loop and an offered ``--sqlite-rate``
  moves/s, each with permessage-deflate on and off (``--compression``).
- **pg**: a throwaway PostgreSQL cluster with its default durability settings (fsync
  on, synchronous_commit on; they are read back and recorded), a fresh database per
  cell and two ``maumau serve --database-url`` processes on it; the load tool gets both
  URLs.  Closed loop and an offered ``--pg-rate`` moves/s, compression on (and off
  with ``--compression-off-too``).  The cluster is removed at the end, also after
  Ctrl+C or an error.
- **ceiling** (``--ceiling DIR``): the bare uvicorn server of ``$SHARED/bench/ceiling``
  (``server.py --mode durable --sync FULL --commit group``) under its ``load.py`` with
  as many connections as we have clients, closed loop and with the think time that
  offers each of our offered rates.  Our moves/s are printed as a ratio of its msgs/s
  (closed loop against closed loop, an offered rate against the same offered rate).
- **bgio** (``--bgio DIR``): the boardgame.io peer of ``$SHARED/bench/bgio-peer``,
  copied to a temporary directory (DIR is only read), ``npm ci`` there, then its
  ``bench.sh memory`` and ``bench.sh flatfile`` with the same number of games.

Each cell's raw JSON (the load tool's ``--json``, the ceiling's row, the peer's result)
is saved in ``--out`` (default ``bench/results/server/``).  For each cell the machine's
load is recorded too: ``/proc/loadavg`` before and after, the load tool's own CPU,
PostgreSQL's CPU, and the busy cores of the whole machine inside the measuring window,
so that a busy machine shows.  ``--markdown FILE`` writes the table as Markdown;
``--show FILE`` prints the tables of an earlier ``--json`` again.  A script, not a
test (``tests/bench/test_bench_server.py`` runs a tiny SQLite cell).  Exit status 0 when
every cell ran, 1 when one failed.
"""

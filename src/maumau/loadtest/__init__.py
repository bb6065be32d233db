"""``maumau loadtest``: a WebSocket load generator for the game server.

A pure client (it imports nothing of the server, the store or the bots): it sets
tables up over HTTP, plays every seat over its own WebSocket as the protocol in
``docs/protocol.md`` describes, and measures moves per second, move latency, errors
and the server's CPU and memory.  See the section "The load tool" of
``docs/performance.md`` (how to run it, what it measures) and "The load tool in full"
of ``docs/history/performance-history.md`` (what it does at each table, the ledger).
"""

from maumau.loadtest.options import LoadOptions
from maumau.loadtest.runner import LoadFailed, run_load

__all__ = ["LoadFailed", "LoadOptions", "run_load"]

"""What the tests share: fixtures and helpers, imported as ``support.<module>``.

- ``paths``: the repository's root and the golden records' folder.
- ``pg``: a throwaway PostgreSQL cluster (``pg_url``) and a fresh database per test.
- ``scenarios``: rigged deals and moves for the rules tests; ``strategies``: hypothesis
  strategies for random options and games.
- ``serverkit``: the ASGI app in process, with HTTP and WebSocket clients.
- ``live``: a real ``maumau serve`` process and threads that play it like people.
- ``proxies``: nginx and Caddy in front of it; ``echoserver``: a bare WebSocket server.
- ``prometheus``: the metrics' text format, parsed.
"""

"""The security headers of every HTTP reply: what the browser may load and run on this
origin, that no other site may frame it or learn its addresses, and that no reply
carrying a seat token is cached.

The origin's storage holds every seat token of the player (``localStorage``), so
nothing but the server's own scripts may run here: the policy allows scripts, styles,
images and connections (``fetch``, the table's WebSocket) from this origin only, and
nothing inline.  WebSockets have no such headers; their connections are left alone.
"""

from __future__ import annotations

from starlette.types import Message, Scope, Send

#: what pages of this origin may load: their own files, and nothing else
POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "manifest-src 'self'",
        "worker-src 'self'",  # the app shell's service worker, /sw.js
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)

#: sent with every reply
HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),  # frame-ancestors, for browsers before CSP 2
    # an invite link (/g/<id>) is not told to other sites
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
)

#: the replies under ``/api/`` (seat tokens, records, the live state of tables)
NO_STORE = (b"cache-control", b"no-store")
#: every other reply (the client's files): kept, but asked for again each time (an
#: ETag makes that a 304), so that a new release is never hidden by an old copy
NO_CACHE = (b"cache-control", b"no-cache")


def secure(scope: Scope, send: Send) -> Send:
    """``send`` for the reply to the HTTP request ``scope``, adding :data:`HEADERS`, and
    ``Cache-Control: no-store`` under ``/api/`` (``no-cache`` elsewhere) unless the
    reply sets its own."""
    api = scope["path"].startswith("/api/")

    async def send_with_headers(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [*message.get("headers", ()), *HEADERS]
            if not any(name.lower() == b"cache-control" for name, _ in headers):
                headers.append(NO_STORE if api else NO_CACHE)
            message["headers"] = headers
        await send(message)

    return send_with_headers

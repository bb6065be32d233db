"""The versions of uvicorn and websockets the server is known to work with.

:mod:`maumau.server.transport.framing` and :mod:`maumau.server.transport.http_protocol`
subclass uvicorn's
HTTP and WebSocket protocols and use websockets' Sans-I/O connection: internals, which
a new minor release may change without notice.  ``pyproject.toml`` bounds both to the
minor versions the tests ran on (``tests/server/test_dependencies.py`` checks that the bounds
there are these), and ``maumau serve`` refuses to start, saying what to install, when
someone's environment has another version anyway (an older pip, ``--no-deps``, a
distribution's package)."""

from __future__ import annotations

import re
from importlib import metadata

#: distribution -> (the lowest supported version, the first one not supported), and
#: the requirement to install it by
SUPPORTED: dict[str, tuple[str, str, str]] = {
    "uvicorn": ("0.54.0", "0.55", "uvicorn[standard]"),
    "websockets": ("17.4", "17.5", "websockets"),
}


class UnsupportedVersion(RuntimeError):
    """An installed dependency is outside the versions the server supports."""


def release(text: str) -> tuple[int, ...]:
    """The release numbers of a version (``"0.55.0rc1"`` -> ``(0, 55, 0)``): a
    pre-release of the first unsupported version is not supported either."""
    match = re.match(r"\d+(?:\.\d+)*", text.strip())
    if match is None:
        raise ValueError(f"not a version: {text!r}")
    numbers = tuple(int(part) for part in match[0].split("."))
    while len(numbers) > 1 and numbers[-1] == 0:  # 0.55 == 0.55.0
        numbers = numbers[:-1]
    return numbers


def requirement(name: str) -> str:
    """The requirement that installs a supported version of ``name``."""
    low, high, extra = SUPPORTED[name]
    return f"{extra}>={low},<{high}"


def check() -> None:
    """Raise :class:`UnsupportedVersion`, with what to do, unless every dependency of
    :data:`SUPPORTED` is installed at a supported version."""
    for name, (low, high, _) in SUPPORTED.items():
        fix = f"pip install '{requirement(name)}'"
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            raise UnsupportedVersion(f"{name} is not installed; install it: {fix}") from None
        try:
            ok = release(low) <= release(installed) < release(high)
        except ValueError:
            ok = False
        if not ok:
            raise UnsupportedVersion(
                f"{name} {installed} is installed, but this maumau supports {name} "
                f">={low},<{high} only (it builds on {name}'s internals); "
                f"install a supported version: {fix}"
            )

"""The option arguments the ``maumau`` commands share: ``--preset`` and ``--set``."""

from __future__ import annotations

import json
from collections.abc import Sequence

from maumau.engine import Rules


def option_value(text: str) -> object:
    """A ``--set`` value: JSON if it reads as JSON (``true``, ``32``), else the text."""
    try:
        value: object = json.loads(text)
    except ValueError:
        return text
    return value


def rules_from_args(preset: str | None, sets: Sequence[str]) -> Rules:
    """The rules of ``preset`` with ``KEY=VALUE`` overrides.  A malformed ``--set``
    raises ``ValueError``; a bad key or value the engine's ``BadOption``."""
    options: dict[str, object] = {}
    if preset is not None:
        options["preset"] = preset
    for item in sets:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set {item!r}: write key=value, e.g. --set ace_skips=true")
        options[key.strip()] = option_value(text.strip())
    return Rules.from_dict(options)

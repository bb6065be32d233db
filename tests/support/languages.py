"""The browser client's languages, for the tests: read from the client's one list of
them, the language picker in ``web/index.html`` (``web/js/i18n.js`` reads the same
picker; ``tests/e2e/test_translations.py`` checks that each has its ``web/lang/`` file
and a locale below).  A test that runs in every language takes :data:`LANGUAGES`."""

from __future__ import annotations

import json
import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "src" / "maumau" / "web"


def _picker() -> tuple[str, ...]:
    html = (WEB / "index.html").read_text("utf-8")
    picker = re.search(r'<select id="lang-picker">(.*?)</select>', html, re.S)
    assert picker is not None, "index.html has no language picker"
    return tuple(re.findall(r'<option value="([\w-]+)">', picker[1]))


#: the language codes, in the picker's order (English first)
LANGUAGES: tuple[str, ...] = _picker()

#: a browser locale for each language (for the tests that format numbers and dates)
LOCALES: dict[str, str] = {"en": "en-US", "de": "de-DE", "da": "da-DK", "sv": "sv-SE"}


def strings(code: str) -> dict[str, str]:
    """Every UI string of language ``code`` (``web/lang/<code>.json``)."""
    data: dict[str, str] = json.loads((WEB / "lang" / f"{code}.json").read_text("utf-8"))
    return data

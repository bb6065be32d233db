"""Hostile display names, and the security headers of every reply.

**Names.**  Each name of :func:`name_cases` is sent on ``POST /api/games`` and on
``POST /api/games/{id}/seats`` at a table of its own whose host is "Anna" (NUL and
other control characters, the bidi override U+202E, zero-width and tag characters, the
byte order mark, blanks, invisible letters, a tower of accents, 33 letters, names of
computer players in any case and width, and at that table the same name as the host's
in other case, width, spacing or with a variation selector).  Gate: each refused as
``docs/protocol.md`` says (``bad_name``, 422; a name another seat has: ``name_taken``,
409) with the documented body; no table created, no seat taken (the database says so).

**Headers.**  A sample of paths (the client's pages and files, ``/g/{id}``,
``/api/health``, a table's info, the OpenAPI document, a 404 of each kind, a 405): every
reply must carry the headers of the protocol's "Security headers" table, every reply
under ``/api/`` ``Cache-Control: no-store``; ``/docs`` and ``/redoc`` must not be served.
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lab.hostile.attacks import CAMPAIGN, NAMES, Part, Target, http_client
from lab.hostile.protocol import PROTOCOL_DOC

NAMES_GATE = "each refused with bad_name (or name_taken) as documented, nothing stored"
HEADERS_GATE = "every reply carries the security headers, /api/ no-store, no /docs or /redoc"

#: the host's name at the names table (the duplicates are of it)
HOST_NAME = "Anna"


def wide(text: str) -> str:
    """``text`` in full-width letters (an ideographic space for a space)."""
    return "".join("\u3000" if c == " " else chr(ord(c) + 0xFEE0) for c in text)


BAD_NAMES: tuple[tuple[str, str], ...] = (
    ("NUL", "Ana\x00"),
    ("NUL alone", "\x00"),
    ("bell", "Ana\x07"),
    ("newline", "Ana\nBo"),
    ("tab", "Ana\tBo"),
    ("escape sequence", "\x1b[31mAna"),
    ("DEL", "Ana\x7f"),
    ("C1 NEL", "Ana\x85"),
    ("U+202E right-to-left override", "Ana\u202eob"),
    ("U+2066 isolate", "\u2066Ana"),
    ("zero-width space", "A\u200bna"),
    ("zero-width joiner", "A\u200dna"),
    ("zero-width non-joiner", "A\u200cna"),
    ("byte order mark", "\ufeffAna"),
    ("soft hyphen", "An\u00ada"),
    ("tag characters", "Ana\U000e0041\U000e007f"),
    ("line separator", "Ana\u2028"),
    ("private use", "Ana\ue000"),
    ("lone surrogate", "Ana\ud800"),
    ("unassigned", "Ana\U000effff"),
    ("empty", ""),
    ("spaces only", "   "),
    ("ideographic spaces", "\u3000\u3000"),
    ("Hangul filler", "\u3164"),
    ("blank Braille", "\u2800\u2800"),
    ("combining grapheme joiner", "\u034f"),
    ("combining mark alone", "\u0301"),
    ("seven accents", "a" + "\u0300" * 7),
    ("33 letters", "A" * 33),
    ("33 after normalising", "A" * 32 + "\u00a0\u00a0B"),
    ("a bot's name", "Ada (bot)"),
    ("a bot's name, upper case", "ADA (BOT)"),
    ("a bot's name, no space", "ada(BOT)"),
    ("a bot's name, full width", wide("Ada (bot)")),
    ("Bot and a number", "Bot 3"),
    ("Bot and a number, full width", wide("BOT 7")),
)

#: the host's name again, as another seat may not take it
SAME_NAMES: tuple[tuple[str, str], ...] = (
    ("same name", HOST_NAME),
    ("lower case", "anna"),
    ("upper case", "ANNA"),
    ("full width", wide(HOST_NAME)),
    ("spaced", "  Anna\u00a0"),
    ("variation selector", "Anna\ufe0f"),
)


@dataclass(frozen=True)
class NameCase:
    label: str
    name: str
    #: "create" (POST /api/games) or "claim" (POST /api/games/{id}/seats)
    where: str
    #: the documented code
    expect: str


def name_cases() -> list[NameCase]:
    cases = [NameCase(label, name, where, "bad_name") for label, name in BAD_NAMES
             for where in ("create", "claim")]  # fmt: skip
    cases += [NameCase(label, name, "claim", "name_taken") for label, name in SAME_NAMES]
    return cases


def body_of(name: str) -> bytes:
    """``{"name": name}`` as JSON, ASCII only (a lone surrogate as its escape)."""
    return json.dumps({"name": name}).encode()


def stored(data_dir: Path, game_id: str) -> tuple[int, list[str]]:
    """How many tables the database holds, and the seat names of ``game_id``."""
    db = sqlite3.connect(f"file:{data_dir / 'maumau.sqlite3'}?mode=ro", uri=True)
    try:
        games = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        seats = db.execute(
            "SELECT name FROM seats WHERE game_id = ? ORDER BY position", (game_id,)
        ).fetchall()
    finally:
        db.close()
    return int(games), [s[0] for s in seats]


async def hostile_names(target: Target) -> Part:
    part = Part("display names", NAMES_GATE)
    headers = {"Content-Type": "application/json"}
    answers: dict[str, str] = {}
    async with http_client(target, NAMES) as http:
        reply = await http.post("/api/games", json={"name": HOST_NAME})
        part.note(reply)
        reply.raise_for_status()
        game_id = reply.json()["game_id"]
        before = stored(target.data_dir, game_id)
        for case in name_cases():
            path = "/api/games" if case.where == "create" else f"/api/games/{game_id}/seats"
            reply = await http.post(path, content=body_of(case.name), headers=headers)
            verdict = part.note(reply, (case.expect,), name=repr(case.name), where=case.where)
            if reply.status_code < 400:
                part.fail("a hostile name was accepted", name=repr(case.name), where=case.where)
            answers[f"{case.where}: {case.label}"] = (
                reply.json().get("error", {}).get("code", str(reply.status_code))
                if verdict == "ok"
                else f"{verdict} {reply.status_code}"
            )
        info = (await http.get(f"/api/games/{game_id}")).json()
        after = stored(target.data_dir, game_id)
    names = [s["name"] for s in info["seats"]]
    if after != before or names != [HOST_NAME]:
        part.fail("something was stored", before=before, after=after, seats=names)
    refused = sum(1 for a in answers.values() if a in ("bad_name", "name_taken"))
    part.figures = {
        "names sent": len(answers),
        "refused as documented": refused,
        "tables in the database before / after": [before[0], after[0]],
        "seats at the table after": names,
        "answers": answers,
    }
    part.passed = not part.failures and refused == len(answers) and part.http_5xx == 0
    counts = {code: list(answers.values()).count(code) for code in sorted(set(answers.values()))}
    part.headline = (
        f"{len(answers)} hostile names (create and claim): {counts}; tables stored "
        f"{before[0]} -> {after[0]}, seats {names}"
    )
    return part


def documented_headers(doc: Path = PROTOCOL_DOC) -> tuple[dict[str, str], dict[str, str]]:
    """The protocol's "Security headers" table: (on every reply, on replies under
    ``/api/`` only), header name (lower case) -> value."""
    section = doc.read_text().split("### Security headers", 1)[1].split("\n### ", 1)[0]
    every: dict[str, str] = {}
    api: dict[str, str] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) < 2:
            continue
        header = re.fullmatch(r"`([A-Za-z-]+)`", cells[0])
        value = re.match(r"`([^`]+)`", cells[1])
        if header and value:
            (api if "/api/" in cells[1] else every)[header.group(1).lower()] = value.group(1)
    return every, api


def header_problems(
    path: str, headers: Any, documented: tuple[dict[str, str], dict[str, str]]
) -> list[str]:
    """Which documented headers the reply to ``path`` lacks or has otherwise."""
    every, api = documented
    wanted = {**every, **(api if path.startswith("/api/") else {})}
    return [
        f"{name}: {headers.get(name)!r}, not {value!r}"
        for name, value in wanted.items()
        if headers.get(name) != value
    ]


def sample_paths(lobby_id: str, finished_id: str) -> list[tuple[str, str]]:
    return [
        ("GET", "/"),
        ("GET", "/index.html"),
        ("GET", "/style.css"),
        ("GET", "/favicon.svg"),
        ("GET", f"/g/{lobby_id}"),
        ("GET", "/api/health"),
        ("GET", f"/api/games/{lobby_id}"),
        ("GET", f"/api/games/{finished_id}"),
        ("GET", f"/api/games/{lobby_id}/qr.svg"),
        ("GET", "/openapi.json"),
        ("GET", "/no/such/page"),
        ("GET", "/api/games/no-such-table"),
        ("GET", "/api/no-such-endpoint"),
        ("DELETE", "/api/health"),
    ]


#: paths that must not be served (FastAPI's documentation pages, off)
NOT_SERVED = ("/docs", "/redoc", "/docs/oauth2-redirect")


async def security_headers(target: Target, lobby_id: str, finished_id: str) -> Part:
    """The sample of :func:`sample_paths` at the tables ``lobby_id`` and ``finished_id``
    (read only)."""
    part = Part("security headers", HEADERS_GATE)
    documented = documented_headers()
    statuses: dict[str, int] = {}
    async with http_client(target, CAMPAIGN) as http:
        for method, path in [
            *sample_paths(lobby_id, finished_id),
            *(("GET", p) for p in NOT_SERVED),
        ]:
            reply = await http.request(method, path)
            statuses[f"{method} {path}"] = reply.status_code
            part.http[str(reply.status_code)] += 1
            part.http_5xx += reply.status_code >= 500
            problems = header_problems(path, reply.headers, documented)
            if problems:
                part.fail("headers missing", path=f"{method} {path}", problems=problems)
            if path in NOT_SERVED and reply.status_code != 404:
                part.fail("documentation page served", path=path, status=reply.status_code)
    part.figures = {
        "documented": {"every reply": documented[0], "under /api/": documented[1]},
        "replies": statuses,
    }
    part.passed = not part.failures and bool(documented[0]) and part.http_5xx == 0
    part.headline = (
        f"{len(statuses)} replies, {len(documented[0])} headers each (+ no-store under /api/): "
        f"{len([f for f in part.failures if f['what'] == 'headers missing'])} lacking; "
        f"/docs, /redoc: {[statuses[f'GET {p}'] for p in NOT_SERVED[:2]]}"
    )
    return part

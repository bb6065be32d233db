"""The HTTP part: lobby and setup.  Described as OpenAPI at ``/openapi.json``.

A seat's token travels only in the ``Authorization: Bearer`` header, never in a URL.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Request, Response
from fastapi.responses import FileResponse, JSONResponse

from maumau.server.http.invites import Invites, check_exists
from maumau.server.live import seating
from maumau.server.live.archive import reply
from maumau.server.live.hub import Hub
from maumau.server.live.table import invite_of
from maumau.server.ops.probes import Readiness
from maumau.server.transport.clients import base_url, client_host
from maumau.server.transport.limits import address_key
from maumau.server.wire.errors import ServerError
from maumau.server.wire.protocol import (
    AddBot,
    BotAdded,
    CreateGame,
    ErrorReply,
    GameInfo,
    Health,
    JoinGame,
    RematchCreated,
    SeatGranted,
)

router = APIRouter()

Auth = Annotated[str | None, Header(description="Bearer <seat token>")]

ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorReply} for status in (400, 401, 403, 404, 409, 410, 422, 429, 503)
}


def hub_of(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


def bearer(authorization: str | None) -> str | None:
    if authorization is None:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ServerError("no_token", "Authorization must be 'Bearer <seat token>'")
    return token.strip()


@router.get("/api/health", response_model=Health, tags=["server"])
async def health(request: Request) -> Health | JSONResponse:
    hub = hub_of(request)
    # the readiness probe's database check, shared and kept a second (maumau.server.ops.probes)
    readiness: Readiness = request.app.state.readiness
    database = "ok" if (await readiness.current(hub))["database"] == "ok" else "unavailable"
    body = Health(
        status="ok" if database == "ok" else "degraded",
        database=database,  # type: ignore[arg-type]
        tables=len(hub.referees),
        connections=hub.connections,
        pending=request.app.state.admission.pending,
    )
    if database != "ok":
        return JSONResponse(body.model_dump(), status_code=503)
    return body


@router.post(
    "/api/games", response_model=SeatGranted, status_code=201, responses=ERRORS, tags=["tables"]
)
async def create_game(body: CreateGame, request: Request) -> SeatGranted:
    """Create a table; its creator takes seat 0 and is the host."""
    hub = hub_of(request)
    address = address_key(client_host(request))
    if not request.app.state.create_limiter.allow(address):
        raise ServerError(
            "too_many_tables", "too many tables created from this address; wait a minute"
        )
    with hub.budget.creating(address):  # too_many_live_tables when it has enough open
        granted = await seating.create_table(hub, body)
    hub.budget.created(granted.game_id, address)
    return granted


@router.get("/api/games/{game_id}", response_model=GameInfo, responses=ERRORS, tags=["tables"])
async def game_info(game_id: str, request: Request) -> GameInfo:
    referee = await hub_of(request).current(game_id, client_host(request))
    return referee.table.info(referee.connected())


@router.post(
    "/api/games/{game_id}/seats", response_model=SeatGranted, responses=ERRORS, tags=["tables"]
)
async def claim_seat(
    game_id: str, body: JoinGame, request: Request, authorization: Auth = None
) -> SeatGranted:
    """Claim a free seat.  With a token that already holds a seat here, that seat."""
    return await seating.claim_seat(hub_of(request), game_id, body.name, bearer(authorization))


@router.delete(
    "/api/games/{game_id}/seats/{position}", status_code=204, responses=ERRORS, tags=["tables"]
)
async def remove_seat(
    game_id: str, position: int, request: Request, authorization: Auth = None
) -> Response:
    """The host removes a seat, or a player leaves their own, before the start."""
    await seating.remove_seat(hub_of(request), game_id, position, bearer(authorization))
    return Response(status_code=204)


@router.post(
    "/api/games/{game_id}/bots", response_model=BotAdded, responses=ERRORS, tags=["tables"]
)
async def add_bot(
    game_id: str, request: Request, body: AddBot | None = None, authorization: Auth = None
) -> BotAdded:
    """The host adds a computer player (the body may be left out: level normal)."""
    level = "normal" if body is None else body.level
    return await seating.add_bot(hub_of(request), game_id, level, bearer(authorization))


@router.post("/api/games/{game_id}/start", status_code=204, responses=ERRORS, tags=["tables"])
async def start(game_id: str, request: Request, authorization: Auth = None) -> Response:
    """The host starts the game (two seats or more)."""
    await seating.start_game(hub_of(request), game_id, bearer(authorization))
    return Response(status_code=204)


@router.post(
    "/api/games/{game_id}/rematch", response_model=RematchCreated, responses=ERRORS, tags=["tables"]
)
async def rematch(game_id: str, request: Request, authorization: Auth = None) -> RematchCreated:
    """After the game: a new table with the same options and seats."""
    return await seating.rematch(hub_of(request), game_id, bearer(authorization))


@router.get("/api/games/{game_id}/record", responses=ERRORS, tags=["tables"])
async def record(game_id: str, request: Request) -> Response:
    """The game record (docs/record.md) of a finished or closed game, with every seed
    (gzip-compressed for a client that accepts it; rate limited per address)."""
    return await _document(request, game_id, "record")


@router.get("/api/games/{game_id}/replay", responses=ERRORS, tags=["tables"])
async def replay_frames(game_id: str, request: Request) -> Response:
    """A finished game step by step, every hand shown: ``{players, rules, rounds:
    [{round, seed, salt, commitment, frames: [{action, view}]}], winners, draw,
    decided_by, totals}`` (gzip-compressed for a client that accepts it; rate limited
    per address)."""
    return await _document(request, game_id, "replay")


async def _document(request: Request, game_id: str, kind: str) -> Response:
    """A finished game's document, made once in a worker and kept (maumau.server.live.archive)."""
    archive = hub_of(request).archive
    archive.allow(address_key(client_host(request)))
    document = await archive.document(game_id, kind)
    return await reply(document, request.headers.get("accept-encoding"))


@router.get(
    "/api/games/{game_id}/qr.svg",
    responses={200: {"content": {"image/svg+xml": {}}}, **ERRORS},
    response_class=Response,
    tags=["tables"],
)
async def invite_qr(game_id: str, request: Request) -> Response:
    """A QR code of the table's invite link (it holds no token; made once per link,
    rate limited per address while new: maumau.server.http.invites)."""
    link = invite_link(request, game_id)  # (bad_host: a Host no link is made of)
    invites: Invites = request.app.state.invites
    hub = hub_of(request)
    code = await invites.qr(
        link, address_key(client_host(request)), lambda: check_exists(hub, game_id)
    )
    return Response(code, media_type="image/svg+xml")


def invite_link(request: Request, game_id: str) -> str:
    """The absolute invite link of a table: at ``--public-url`` if the server has one,
    else at the request's ``Host`` (with the scheme the client used)."""
    return base_url(request, request.app.state.config.public_url) + invite_of(game_id)


@router.get("/g/{game_id}", include_in_schema=False)
async def invite(game_id: str, request: Request) -> FileResponse:
    """The invite link opens the browser client, which reads the id from the path."""
    return FileResponse(request.app.state.config.web_dir / "index.html")

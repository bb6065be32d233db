"""``maumau play``: a whole game against the bots, in the terminal.

    maumau play --seats me,hard,normal,normal --preset penalty-100

The player types moves in the record notation (see :mod:`maumau.cli.play_input`);
the bots move with a short pause so that their moves can be followed.  Every round is
dealt with a shuffle commitment, and when the game ends -- or is stopped with Ctrl-C,
end of input or ``q`` -- its record is saved (``--record PATH``, else a new
``maumau-<time>.json`` here), which ``maumau record replay`` and ``maumau verify``
accept: a stopped game is a record whose last round is unfinished.

Exit statuses: 0 the game was played (or stopped with ``q`` / end of input) and saved,
2 a bad command line or the record could not be written, 130 stopped with Ctrl-C.
"""

from __future__ import annotations

import argparse
import secrets
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from rich.console import Console
from rich.text import Text

from maumau.bots import Bot, make_bot
from maumau.bots.match import round_seeds
from maumau.bots.tournament import labels_for
from maumau.cli.options import rules_from_args
from maumau.cli.play_input import NotAMove, read_move
from maumau.cli.play_screen import Screen
from maumau.cli.types import seconds_up_to, whole
from maumau.engine import Catch, EngineError, Game, Rules
from maumau.engine.options import PRESETS
from maumau.engine.replay import record_of
from maumau.engine.verify import commitment_of

ME = "me"
MAX_NAME = 24
#: the longest pause before a bot's move, in seconds
MAX_DELAY = 10.0


class Stop(Exception):
    """The player stopped the game (``q``, or the end of input)."""


@contextmanager
def whole_moves() -> Iterator[None]:
    """Hold a Ctrl-C back until the block is done, so that the game is never left
    half way through taking a move (the record saved next must replay)."""
    held: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        held.append(signum)

    previous = signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if held:
        raise KeyboardInterrupt


class Session:
    """One game: the player in seat ``me``, a bot in every other seat."""

    def __init__(
        self, game: Game, me: int, bots: dict[int, Bot], seed: int, delay: float, console: Console
    ) -> None:
        self.game = game
        self.me = me
        self.bots = bots
        self.seeds = round_seeds(seed)
        self.delay = delay
        self.console = console
        self.screen = Screen(console, me)
        self.shown = 0  # log entries of this round already printed

    # --- input -------------------------------------------------------------------------

    def ask(self, prompt: str) -> str:
        try:
            return self.console.input(prompt)
        except EOFError:
            raise Stop from None

    # --- the game ----------------------------------------------------------------------

    def play(self) -> None:
        game = self.game
        while not game.finished:
            seed = self.seeds.getrandbits(63)
            salt = secrets.token_hex(16)
            with whole_moves():
                game.deal(seed, commitment=commitment_of(seed, salt), salt=salt)
            self.play_round()
            view = game.view(self.me)
            self.screen.round_summary(view, game.results[-1], len(game.results))
            if not game.finished:
                text = self.ask("Enter: next round, q: save and quit > ").strip().lower()
                if text in ("q", "quit"):
                    raise Stop
        self.screen.result(game.view(self.me), game.winners or (), game.decided_by)

    def play_round(self) -> None:
        game = self.game
        self.shown = 0
        self.console.print()
        self.console.rule(f"Round {len(game.rounds)}")
        while not game.round_over:
            self.shown = self.screen.log(game.view(self.me), self.shown)
            seat = game.to_move
            if seat == self.me:
                self.my_move()
            else:
                self.bot_move(seat)
            if not game.round_over and game.view(self.me).catchable is not None:
                self.offer_catch()
        self.shown = self.screen.log(game.view(self.me), self.shown)

    def my_move(self) -> None:
        view = self.game.view(self.me)
        legal = self.game.legal_actions(self.me)
        self.console.print()
        self.screen.table(view)
        self.screen.hand(view, legal)
        while True:
            text = self.ask("Your move (? for help) > ").strip()
            if self.command(text, legal):
                continue
            if self.try_move(text, legal):
                return

    def command(self, text: str, legal: Any) -> bool:
        """``?`` / ``help`` (list the moves; True) and ``q`` / ``quit`` (stop)."""
        if text.lower() in ("q", "quit"):
            raise Stop
        if text.lower() in ("?", "help"):
            self.screen.help(legal)
            return True
        return False

    def try_move(self, text: str, legal: Any) -> bool:
        """Apply the move ``text`` names; on a bad one say why and list the moves."""
        try:
            action = read_move(text, legal)
            with whole_moves():
                self.game.apply(action, self.me)
        except NotAMove as exc:
            self.console.print(Text("Not a move: ", style="bold red").append(str(exc)))
        except EngineError as exc:
            self.console.print(Text(f"{exc.code}: ", style="bold red").append(exc.message))
        else:
            return True
        self.screen.moves(legal)
        return False

    def bot_move(self, seat: int) -> None:
        if self.delay:
            time.sleep(self.delay)
        view = self.game.view(seat)
        action = self.bots[seat].choose(view, self.game.legal_actions(seat))
        with whole_moves():
            self.game.apply(action, seat)

    def offer_catch(self) -> None:
        """A missed call may be caught: the player is asked first (when it is not their
        turn anyway), then every bot in seat order, as ``maumau.bots.match`` does."""
        game = self.game
        self.shown = self.screen.log(game.view(self.me), self.shown)
        legal = game.legal_actions(self.me)
        if game.to_move != self.me and any(isinstance(a, Catch) for a in legal):
            self.screen.catch_offer(game.view(self.me))
            while True:
                text = self.ask("Catch (c SEAT) or Enter to let it go > ").strip()
                if self.command(text, legal):
                    continue
                if not text or self.try_move(text, legal):
                    break
        for step in range(1, game.n):
            seat = (self.me + step) % game.n
            if game.round_over or game.view(self.me).catchable is None:
                return
            if seat == game.to_move:
                continue
            bot_legal = game.legal_actions(seat)
            if bot_legal:
                action = self.bots[seat].react(game.view(seat), bot_legal)
                if action is not None:
                    with whole_moves():
                        game.apply(action, seat)
                    return


# --- the command ---------------------------------------------------------------------


def default_record_path() -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = Path(f"maumau-{stamp}.json")
    number = 2
    while path.exists():
        path = Path(f"maumau-{stamp}-{number}.json")
        number += 1
    return path


def save(game: Game, path: Path, console: Console) -> bool:
    text = record_of(game).dumps()
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        console.print(f"maumau: cannot write {path}: {exc.strerror or exc}; the record:")
        console.out(text, highlight=False)
        return False
    state = "the game" if game.finished else f"the game so far ({len(game.results)} rounds done)"
    console.print(f"Saved {state} to {path}", highlight=False)
    console.print(f"  maumau record replay {path}    maumau verify {path}", highlight=False)
    return True


def build(args: argparse.Namespace) -> tuple[Game, int, dict[int, Bot]]:
    """The game of the command line; ``ValueError`` / ``EngineError`` when it is bad."""
    seats = [s.strip() for s in args.seats.split(",")]
    if seats.count(ME) != 1:
        raise ValueError(f"--seats: put {ME!r} exactly once among the seats, e.g. me,hard")
    name = args.name.strip()
    if not name or len(name) > MAX_NAME or not name.isprintable():
        raise ValueError(f"--name: 1 to {MAX_NAME} printable characters, not {name!r}")
    rules: Rules = rules_from_args(args.preset, args.set)
    rules.check_players(len(seats))
    me = seats.index(ME)
    rng = round_seeds(args.seed + 1)  # the bots' seeds: not the deals' generator
    labels = labels_for([s for s in seats if s != ME])
    bots: dict[int, Bot] = {}
    names = []
    for seat, level in enumerate(seats):
        if seat == me:
            names.append(name)
            continue
        bots[seat] = make_bot(level, rng.getrandbits(63))
        names.append(labels[len(bots) - 1])
    if name in names[:me] + names[me + 1 :]:
        raise ValueError(f"--name: {name!r} is a bot's name here; choose another")
    return Game(rules, names), me, bots


def cmd_play(args: argparse.Namespace) -> int:
    # no markup: names, paths and what the player typed are printed as they are
    console = Console(highlight=False, markup=False)
    err = Console(stderr=True, highlight=False, markup=False)
    if args.seed is None:
        args.seed = secrets.randbits(63)
    if args.record is not None and not args.record.parent.is_dir():
        err.print(f"maumau: --record: there is no directory {args.record.parent}")
        return 2
    try:
        game, me, bots = build(args)
    except (ValueError, EngineError) as exc:
        err.print(f"maumau: {exc}")
        return 2
    path = args.record or default_record_path()
    session = Session(game, me, bots, args.seed, args.bot_delay, console)
    status = 0
    try:
        session.play()
    except KeyboardInterrupt:
        console.print("\nStopped (Ctrl-C).")
        status = 130
    except Stop:
        console.print("\nStopped.")
    if not game.rounds:
        console.print("No round was dealt: nothing to save.")
        return status
    return status if save(game, path, console) else 2


def add_commands(commands: Any) -> None:
    """Register ``play`` on the ``maumau`` sub-command parser."""
    play = commands.add_parser(
        "play",
        help="play a game against the bots in the terminal",
        description="A whole game against the bots. Type moves as in the record notation: "
        "7H plays the Seven of hearts, JC>H a Jack wishing for hearts, 7H mau calls Mau, "
        "d draws, p passes, c SEAT catches; ? lists your moves. The record is saved at the "
        "end, and when you stop with q, Ctrl-C or end of input. Exit status: 0 played or "
        "stopped and saved, 2 bad command line or unwritable record, 130 Ctrl-C.",
    )
    play.add_argument(
        "--seats",
        default="me,normal",
        help="comma-separated seats: me (you, once) and bot levels (random, easy, normal, "
        "hard, hard:N); seat 0 leads the first round. Default: me,normal",
    )
    play.add_argument("--preset", default="standard", choices=list(PRESETS))
    play.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    play.add_argument("--seed", type=whole, help="deal reproducibly (default: a random seed)")
    play.add_argument(
        "--bot-delay",
        type=seconds_up_to(MAX_DELAY),
        default=0.6,
        metavar="SECONDS",
        help="pause before each bot move (default: 0.6)",
    )
    play.add_argument("--record", type=Path, metavar="PATH", help="where to save the record")
    play.add_argument("--name", default="You", help="your name at the table")
    play.set_defaults(handler=cmd_play)

"""What ``maumau play`` shows: the table, the hand, the moves, the log in words, the
round summary and the game's result.  Everything shown comes from the player's own
:class:`~maumau.engine.SeatView` (and the finished rounds' public results): the other
hands and the draw pile stay hidden until a round is over."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from maumau.cli.play_input import notation
from maumau.engine import Action, Draw, Play, RoundResult, SeatView
from maumau.engine.cards import CODES, SUITS

SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
SUIT_STYLES = {"C": "bold", "D": "bold red", "H": "bold red", "S": "bold"}
CALL_WORDS = {"mau": "Mau", "maumau": "Mau Mau"}
REASONS = {"missed": "forgot the Mau call", "false": "a wrong Mau call"}


def card_text(code: str) -> Text:
    """A card as its code with the suit's symbol, coloured by suit: ``7H♥``."""
    return Text(code + SUIT_SYMBOLS[code[1]], style=SUIT_STYLES[code[1]])


class Screen:
    """Writes to ``console`` for the player in seat ``me``."""

    def __init__(self, console: Console, me: int) -> None:
        self.console = console
        self.me = me

    def name(self, view: SeatView, seat: int) -> str:
        return view.players[seat]

    # --- the log -------------------------------------------------------------------

    def log(self, view: SeatView, start: int) -> int:
        """Print the log entries from ``start`` on; returns the next index."""
        entries = view.log_json(start)
        for entry in entries:
            self.console.print(Text("  · ").append_text(self.describe(view, entry)))
        return start + len(entries)

    def describe(self, view: SeatView, entry: dict[str, Any]) -> Text:
        """A log entry in words, as the browser's move log says it."""

        def who(seat: int) -> str:
            return self.name(view, seat)

        out = Text()
        if "play" in entry:
            out.append(f"{who(entry['seat'])} played ").append_text(card_text(entry["play"]))
            if "suit" in entry:
                out.append(f" and wished for {SUIT_NAMES[entry['suit']]}")
            if "call" in entry:
                out.append(f" “{CALL_WORDS[entry['call']]}!”", style="bold yellow")
            if "skipped" in entry:
                skipped = entry["skipped"]
                verb = "were" if skipped == self.me else "was"
                out.append(f" · {who(skipped)} {verb} skipped")
            if entry.get("reversed"):
                out.append(" · play changed direction")
        elif "draw" in entry:
            cards = entry.get("cards")
            if cards:
                out.append(f"{who(entry['seat'])} drew ")
                out.append_text(Text(", ").join(card_text(c) for c in cards))
            else:
                n = entry["draw"]
                out.append(f"{who(entry['seat'])} drew " + ("a card" if n == 1 else f"{n} cards"))
        elif "penalty" in entry:
            n = entry["penalty"]
            out.append(f"{who(entry['seat'])} drew {n} penalty card{'' if n == 1 else 's'}")
            if entry.get("reason") == "caught" and "by" in entry:
                out.append(f" — caught by {who(entry['by'])}")
            elif entry.get("reason") in REASONS:
                out.append(f" — {REASONS[entry['reason']]}")
            if entry.get("cards"):
                out.append(": ").append_text(Text(", ").join(card_text(c) for c in entry["cards"]))
        elif "pass" in entry:
            said = "kept the card" if entry.get("kept") else "passed"
            out.append(f"{who(entry['seat'])} " + ("let it count" if entry.get("accept") else said))
        elif "catch" in entry:
            out.append(f"{who(entry['seat'])} caught {who(entry['catch'])}", style="bold")
        elif "reshuffle" in entry:
            out.append("The discard pile was shuffled into a new draw pile")
        elif "out" in entry:
            out.append(f"{who(entry['out'])} went out", style="bold green")
        return out

    # --- the table -----------------------------------------------------------------

    def table(self, view: SeatView) -> None:
        """The seats, the top card, what is pending, the direction and whose turn."""
        grid = Table(box=None, pad_edge=False, show_edge=False, header_style="dim")
        for column, justify in (("", "left"), ("seat", "right"), ("player", "left")):
            grid.add_column(column, justify=justify)  # type: ignore[arg-type]
        for column in ("cards", "total", "rounds won"):
            grid.add_column(column, justify="right")
        for seat, player in enumerate(view.players):
            mark = "▶" if seat == view.to_move else ""
            label = f"{player} (you)" if seat == self.me and player != "You" else player
            style = "bold" if seat == view.to_move else ""
            grid.add_row(
                mark,
                str(seat),
                Text(label, style=style),
                str(view.counts[seat]),
                str(view.totals[seat]),
                str(view.rounds_won[seat]),
            )
        self.console.print(grid)
        top = Text("Top card: ").append_text(card_text(str(view.top)))
        if view.named_suit is not None:
            suit = SUITS[view.named_suit]
            top.append(f"   wished for: {SUIT_NAMES[suit]} {SUIT_SYMBOLS[suit]}", style="bold")
        if view.pending:
            top.append(f"   Sevens pending: draw {view.pending}", style="bold magenta")
        self.console.print(top)
        way = "→ up the seat numbers" if view.direction > 0 else "← down the seat numbers"
        self.console.print(f"Play goes {way} · draw pile: {view.stock_count} cards")
        reason = self.catch_reason(view)
        if reason is not None:
            self.console.print(reason)

    def catch_reason(self, view: SeatView) -> Text | None:
        """Why somebody can be caught now (as the browser says it), and how."""
        seat = view.catchable
        if seat is None:
            return None
        due = "Mau Mau" if view.step == "wait" or view.counts[seat] == 0 else "Mau"
        plays = [e for e in view.log_json() if "play" in e and e["seat"] == seat]
        said = plays[-1].get("call") if plays else None
        name = self.name(view, seat)
        if said is None:
            text = f"{name} forgot to say “{due}”"
        else:
            text = f"{name} said “{CALL_WORDS[said]}” instead of “{due}”"
        if seat != self.me:
            text += f": c {seat} catches"
        return Text(text, style="bold yellow")

    def catch_offer(self, view: SeatView) -> None:
        reason = self.catch_reason(view)
        if reason is not None:
            self.console.print(reason)

    def hand(self, view: SeatView, legal: Sequence[Action]) -> None:
        """The player's hand (the cards they can play underlined) and the moves."""
        playable = {CODES[a.card] for a in legal if isinstance(a, Play)}
        line = Text("Your hand: ")
        for card in view.hand:
            code = str(card)
            shown = card_text(code)
            if code in playable:
                shown.stylize("underline")
            line.append_text(shown).append(" ")
        if view.drawn is not None:
            line.append("  (just drew ").append_text(card_text(str(view.drawn))).append(")")
        self.console.print(line)
        self.moves(legal)

    def moves(self, legal: Sequence[Action]) -> None:
        self.console.print(Text("Moves: ", style="bold").append("  ".join(moves_of(legal))))

    def help(self, legal: Sequence[Action]) -> None:
        self.console.print(
            "Type a move in the record notation: a card to play (7H), a Jack with the suit "
            "you wish for (JC>H), the call after the card when it is due (7H mau, "
            "7H maumau), d to draw, p to pass (keep a drawn card, let a Mau Mau count), "
            "c SEAT to catch a missing call. q saves the game and quits; Ctrl-C too."
        )
        self.moves(legal)

    # --- ends ----------------------------------------------------------------------

    def round_summary(self, view: SeatView, result: RoundResult, number: int) -> None:
        self.console.print()
        self.console.rule(f"Round {number}: {self.name(view, result.out)} went out")
        grid = Table(box=None, header_style="dim")
        for column in ("player", "cards left", "value", "total", "rounds won"):
            grid.add_column(
                column, justify="left" if column in ("player", "cards left") else "right"
            )
        for seat, player in enumerate(view.players):
            left = Text(" ").join(card_text(c) for c in result.hands[seat]) or Text("out")
            grid.add_row(
                player,
                left,
                str(result.hand_values[seat]),
                str(result.totals[seat]),
                str(result.rounds_won[seat]),
            )
        self.console.print(grid)

    def result(self, view: SeatView, winners: Sequence[int], decided_by: str | None) -> None:
        names = " and ".join(self.name(view, s) for s in winners)
        rules = view.rules
        how = {
            "out": f"by reaching {rules.effective_limit} points"
            if rules.scoring == "reward"
            else "by going out",
            "fewest_points": "with the fewest points",
            "rounds_won": "on rounds won (the points were tied)",
            "draw": "tied on points and rounds won",
        }.get(decided_by or "", "")
        verb = "win" if list(winners) == [self.me] else "wins" if len(winners) == 1 else "share"
        self.console.rule(f"Game over: {names} {verb} {how}".rstrip(), style="bold green")


def moves_of(legal: Sequence[Action]) -> list[str]:
    """The legal moves in the notation, each once (a draw of several cards says so)."""
    shown = []
    for action in legal:
        text = notation(action)
        if isinstance(action, Draw) and action.count not in (None, 1):
            text += f" (draw {action.count})"
        if text not in shown:
            shown.append(text)
    return shown

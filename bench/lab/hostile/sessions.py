"""Probe categories of messages out of place in the session: hello with wrong tokens or
twice, moves before hello and from spectators, ready while no round is over."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from lab.hostile.games import GameCtx
from lab.hostile.pieces import Pieces
from lab.hostile.probes import Probe
from lab.hostile.values import TEXT, dumps, fits, json_values


class Sessions(Pieces):
    """Probes of messages out of place in the session."""

    def hello_bad_token(self) -> st.SearchStrategy[Probe]:
        """hello on a connection that has not said hello, with a token that holds no
        seat here."""

        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game = draw(st.sampled_from(self.games()))
            real = list(game.tokens.values())
            how = draw(
                st.sampled_from(
                    ["random", "stranger", "altered", "empty", "long", "not-string", "extra"]
                )
            )
            message: dict[str, Any] = {"type": "hello"}
            if how == "random":
                message["token"] = draw(
                    st.text(st.characters(codec="utf-8"), min_size=1, max_size=128).filter(
                        lambda t: t not in real
                    )
                )
                expect: tuple[str, ...] = ("bad_token",)
            elif how == "stranger":
                message["token"] = draw(st.sampled_from(self.ctx.strangers))
                expect = ("bad_token",)
            elif how == "altered":
                token = draw(st.sampled_from(real))
                change = draw(st.sampled_from(["upper", "cut", "space", "bearer", "flip", "dup"]))
                message["token"] = {
                    "upper": token.upper() if token.upper() != token else token + "A",
                    "cut": token[:-1],
                    "space": f" {token} ",
                    "bearer": f"Bearer {token}",
                    "flip": token[:-1] + ("A" if token[-1] != "A" else "B"),
                    "dup": token + token,
                }[change]
                expect = ("bad_token",)
            elif how == "empty":
                message["token"] = ""
                expect = ("no_token",)
            elif how == "long":
                message["token"] = "t" * draw(st.integers(129, 3000))
                expect = ("bad_message",)
            elif how == "not-string":
                message["token"] = draw(
                    json_values(4).filter(lambda v: v is not None and not isinstance(v, str))
                )
                expect = ("bad_message",)
            else:
                message["token"] = draw(st.sampled_from([None, *real]))
                message[draw(TEXT.filter(lambda k: k not in ("type", "token")))] = draw(
                    json_values(4)
                )
                expect = ("bad_message",)
            text = dumps(message, draw(st.booleans()))
            return Probe("hello-bad-token", game.key, "fresh", "text", text, expect, detail=how)

        return build().filter(lambda p: fits(p.text()))

    def hello_again(self) -> st.SearchStrategy[Probe]:
        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game, who = draw(self.greeted())
            token = draw(st.sampled_from([None, *game.tokens.values(), *self.ctx.strangers]))
            message = {"type": "hello"} if token is None and draw(st.booleans()) else None
            text = dumps(message or {"type": "hello", "token": token})
            return Probe("hello-again", game.key, who, "text", text, ("already_greeted",))

        return build()

    def well_formed_move(self, game: GameCtx, seat: int | None) -> st.SearchStrategy[str]:
        """A move of the right shape (its action object may not read)."""
        action = self.plausible(game, seat) | st.dictionaries(TEXT, json_values(4), max_size=3)
        message = st.fixed_dictionaries(
            {
                "type": st.just("action"),
                "version": st.integers(0, 10**6),
                "action_id": self.fresh_id(game, seat),
                "action": action,
            }
        )
        return st.one_of(message.map(dumps), st.just(dumps({"type": "ready"})))

    def before_hello(self) -> st.SearchStrategy[Probe]:
        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game = draw(st.sampled_from(self.games()))
            text = draw(self.well_formed_move(game, None))
            return Probe("before-hello", game.key, "fresh", "text", text, ("hello_required",))

        return build()

    def spectator_acts(self) -> st.SearchStrategy[Probe]:
        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game = draw(st.sampled_from(self.games()))
            text = draw(self.well_formed_move(game, None))
            return Probe("spectator-acts", game.key, "spectator", "text", text, ("not_seated",))

        return build()

    def ready(self) -> st.SearchStrategy[Probe]:
        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game, seat = draw(self.seated())
            if draw(st.booleans()):
                text, expect = dumps({"type": "ready"}), ("not_between_rounds",)
            else:
                extra = draw(
                    st.dictionaries(
                        TEXT.filter(lambda k: k != "type"), json_values(4), min_size=1, max_size=3
                    )
                )
                text, expect = dumps({"type": "ready", **extra}), ("bad_message",)
            return Probe("ready", game.key, f"seat{seat}", "text", text, expect)

        return build()

"""The near-valid probes: a real move of a seated connection with one thing changed."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from lab.hostile.games import GameCtx
from lab.hostile.pieces import Pieces
from lab.hostile.probes import Probe
from lab.hostile.protocol import ACTION_KEYS, NAN_LITERALS, VERBS
from lab.hostile.values import ACTION_TYPOS, SURROGATES, TEXT, dumps, json_values
from maumau.engine.cards import CODES

#: the kinds of change to a real move (near-valid probes)
NEAR_VALID_KINDS = (
    "stale-version", "negative-version", "version-not-int", "version-lax", "missing-field",
    "extra-field", "bad-action-id", "duplicate-id", "action-not-object", "action-empty",
    "two-verbs", "unknown-action-key", "card-off-deck", "card-malformed", "card-not-string",
    "card-not-in-hand", "bad-suit", "suit-not-string", "suit-on-non-jack", "bad-call",
    "bad-draw", "draw-count", "bad-pass", "bad-catch", "catch-range", "other-seat",
    "type-variant", "truncated", "nan-literal", "deep-nesting", "surrogate", "bom",
    "duplicate-keys", "huge-number",
)  # fmt: skip


class NearValid(Pieces):
    """Near-valid probes."""

    def near_valid(self, kind: str | None = None) -> st.SearchStrategy[Probe]:
        """A real move of a seated connection with one thing changed (``kind``: which
        change; any if ``None``)."""
        kinds = NEAR_VALID_KINDS if kind is None else (kind,)
        seats = self.seated()
        resent = [(g, s) for g in self.games() for s, ids in g.accepted_ids.items() if ids]
        if kind == "duplicate-id" and resent:  # where a move was accepted
            seats = st.sampled_from(resent)
        return seats.flatmap(
            lambda gs: self.cached(
                ("near", gs[0].key, gs[1], kind), lambda: self.near_valid_at(*gs, kinds)
            )
        )

    def near_valid_at(
        self, game: GameCtx, seat: int, kinds: Sequence[str]
    ) -> st.SearchStrategy[Probe]:
        """Near-valid probes for one seat's connection, with one of ``kinds`` of change."""
        version = game.version if game.version is not None else 1

        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            kind = draw(st.sampled_from(kinds))
            action = draw(self.plausible(game, seat))
            action_id = draw(self.fresh_id(game, seat))
            message: dict[str, Any] = {
                "type": "action",
                "version": version,
                "action_id": action_id,
                "action": action,
            }
            expect: tuple[str, ...] = ()
            raw: str | None = None
            echo: str | None = action_id
            valid = self.expect_valid
            if kind == "stale-version":
                message["version"] = draw(
                    st.integers(0, version + 50) | st.integers(version + 1, 10**30)
                )
                if message["version"] == version:
                    message["version"] += 1
                expect = valid(game, seat, message["version"], action_id)
            elif kind == "negative-version":
                message["version"] = draw(st.integers(max_value=-1))
                expect = ("bad_message",)
            elif kind == "version-not-int":
                message["version"] = draw(
                    st.sampled_from(
                        [
                            1.5,
                            "one",
                            [version],
                            {"v": version},
                            None,
                            "",
                            "1e3",
                            -0.5,
                            "0x1",
                            version + 0.25,
                        ]
                    )
                )
                expect = ("bad_message",)
            elif kind == "version-lax":  # close to an integer, but no JSON integer: refused
                message["version"] = draw(
                    st.sampled_from([True, False, str(version), float(version), f" {version} "])
                )
                expect = ("bad_message",)
            elif kind == "missing-field":
                del message[draw(st.sampled_from(["version", "action_id", "action", "type"]))]
                expect = ("bad_message",)
                echo = message.get("action_id")
            elif kind == "extra-field":
                message[draw(TEXT.filter(lambda k: k not in message))] = draw(json_values(4))
                expect = ("bad_message",)
            elif kind == "bad-action-id":
                bad = draw(
                    st.sampled_from(["", 7, None, [action_id], {"id": 1}, True, -1.5])
                    | st.integers(65, 300).map(lambda n: "x" * n)
                    | SURROGATES
                )
                message["action_id"] = bad
                expect = ("bad_message",)
                echo = bad[:64] if isinstance(bad, str) and bad.isprintable() else None
                if isinstance(bad, str) and not bad.isprintable():
                    echo = None  # a lone surrogate cannot be echoed
            elif kind == "duplicate-id" and game.accepted_ids.get(seat):
                message["action_id"] = draw(st.sampled_from(game.accepted_ids[seat]))
                message["version"] = draw(st.integers(0, 10**6))
                message["action"] = draw(self.plausible(game, seat))
                expect = valid(game, seat, message["version"], message["action_id"])
                echo = message["action_id"]
            elif kind in ("duplicate-id", "action-not-object"):
                message["action"] = draw(json_values(6).filter(lambda v: not isinstance(v, dict)))
                expect = ("bad_message",)
            elif kind == "action-empty":
                message["action"] = {}
                expect = ("bad_action",)
            elif kind == "two-verbs":
                first, second = draw(st.permutations(VERBS))[:2]
                message["action"] = {first: draw(json_values(2)), second: draw(json_values(2))}
                if "seat" in message["action"]:
                    del message["action"]["seat"]
                expect = ("bad_action",)
            elif kind == "unknown-action-key":
                key = draw(TEXT.filter(lambda k: k not in ACTION_KEYS))
                message["action"] = {**action, key: draw(json_values(3))}
                message["action"].pop("seat", None)
                expect = ("bad_action",)
            elif kind == "card-off-deck" and game.rules.deck == 32:
                off = [c for c in CODES if c not in game.deck]
                message["action"] = {"play": draw(st.sampled_from(off))}
                expect = ("bad_card",)
            elif kind in ("card-off-deck", "card-malformed"):
                bad_card = draw(
                    st.sampled_from(
                        [
                            "",
                            "1H",
                            "10H",
                            "qh",
                            "7h",
                            "JC ",
                            " JC",
                            "XX",
                            "J",
                            "JCC",
                            "j♣",
                            "7♥",
                            "\u0037\u0048\u200b",
                        ]
                    )
                    | TEXT.filter(lambda t: t not in CODES)
                )
                message["action"] = {"play": bad_card}
                expect = ("bad_card",)
            elif kind == "card-not-string":
                message["action"] = {
                    "play": draw(json_values(3).filter(lambda v: not isinstance(v, str)))
                }
                expect = ("bad_action",)
            elif kind == "card-not-in-hand":
                hand = set(game.hands.get(seat, ()))
                message["action"] = {
                    "play": draw(st.sampled_from([c for c in game.deck if c not in hand]))
                }
                expect = valid(game, seat, version, action_id)
            elif kind == "bad-suit":
                jack = draw(st.sampled_from([c for c in game.deck if c[0] == "J"]))
                suit = draw(st.sampled_from(["X", "h", "Hearts", "", "CD", "♥", "0"]))
                message["action"] = {"play": jack, "suit": suit}
                expect = ("bad_suit",)
            elif kind == "suit-not-string":
                jack = draw(st.sampled_from([c for c in game.deck if c[0] == "J"]))
                suit = draw(
                    json_values(3).filter(lambda v: v is not None and not isinstance(v, str))
                )
                message["action"] = {"play": jack, "suit": suit}
                expect = ("bad_action",)
            elif kind == "suit-on-non-jack":
                card = draw(st.sampled_from([c for c in game.deck if c[0] != "J"]))
                message["action"] = {"play": card, "suit": draw(st.sampled_from("CDHS"))}
                expect = valid(game, seat, version, action_id)
            elif kind == "bad-call":
                card = draw(self.hand_or_deck(game, seat))
                call = draw(
                    st.sampled_from(["MAU", "mau mau", "Mau", "", 1, True, ["mau"], "maumaumau"])
                )
                message["action"] = {"play": card, "call": call}
                expect = ("bad_action",)
            elif kind == "bad-draw":
                how = draw(st.sampled_from(["value", "nan", "null-with"]))
                if how == "value":
                    message["action"] = {
                        "draw": draw(st.sampled_from([-1, -(10**20), 1.5, "1", True, [1], {}]))
                    }
                elif how == "nan":
                    message["action"] = {"draw": "__NAN__"}
                    raw = draw(st.sampled_from(NAN_LITERALS))
                else:
                    message["action"] = {
                        "draw": None,
                        draw(st.sampled_from(["suit", "call", "play", "pass", "x"])): "H",
                    }
                expect = ("bad_action",)
            elif kind == "draw-count":
                message["action"] = {"draw": draw(st.sampled_from([0, 2, 3, 7, 10**20]))}
                expect = valid(game, seat, version, action_id)
            elif kind == "bad-pass":
                message["action"] = {
                    "pass": draw(st.sampled_from([False, 1, "true", None, [], {}]))
                }
                expect = ("bad_action",)
            elif kind == "bad-catch":
                if draw(st.booleans()):
                    message["action"] = {"catch": draw(st.sampled_from(["1", 1.5, None, True, []]))}
                else:
                    message["action"] = {"catch": "__NAN__"}
                    raw = draw(st.sampled_from(NAN_LITERALS))
                expect = ("bad_action",)
            elif kind == "catch-range":
                message["action"] = {"catch": draw(st.sampled_from([-1, 8, 99, 10**20, seat]))}
                expect = valid(game, seat, version, action_id)
            elif kind == "other-seat":
                other = draw(
                    st.integers().filter(lambda s: s != seat)
                    | st.sampled_from(["0", str(seat), None, [seat], {"seat": seat}, "__NAN__"])
                )
                if other == "__NAN__":
                    raw = draw(st.sampled_from(NAN_LITERALS))
                message["action"] = {**action, "seat": other}
                expect = ("not_your_seat",)
            elif kind == "type-variant":
                message["type"] = draw(st.sampled_from(ACTION_TYPOS))
                expect = ("unknown_type",)
                echo = action_id
            elif kind == "truncated":
                text = dumps(message)
                raw_text = text[: draw(st.integers(0, len(text) - 1))]
                return Probe(
                    "near-valid",
                    game.key,
                    f"seat{seat}",
                    "text",
                    raw_text,
                    ("bad_json",),
                    detail=kind,
                )
            elif kind == "nan-literal":
                message["version"] = "__NAN__"
                raw = draw(st.sampled_from(NAN_LITERALS))
                expect = ("bad_message",)
            elif kind == "deep-nesting":
                depth = draw(st.integers(2, 900))
                message["action"] = {"play": json.loads("[" * depth + "]" * depth)}
                expect = ("bad_action", "bad_json")
                echo = None
            elif kind == "surrogate":
                where = draw(st.sampled_from(["action_id", "card", "suit", "type", "key"]))
                lone = draw(SURROGATES)
                if where == "action_id":
                    message["action_id"] = "id-" + lone
                    expect, echo = ("bad_message",), None
                elif where == "card":
                    message["action"] = {"play": "7" + lone}
                    expect = ("bad_card",)
                elif where == "suit":
                    message["action"] = {"play": "JC", "suit": lone}
                    expect = ("bad_suit",)
                elif where == "type":
                    message["type"] = "action" + lone
                    expect = ("unknown_type",)
                else:
                    message["action"] = {**action, "x" + lone: 1}
                    message["action"].pop("seat", None)
                    expect = ("bad_action",)
                return Probe(
                    "near-valid",
                    game.key,
                    f"seat{seat}",
                    "text",
                    dumps(message, True),
                    expect,
                    echo,
                    detail=kind,
                )
            elif kind == "bom":
                text = "\ufeff" + dumps(message)
                return Probe(
                    "near-valid",
                    game.key,
                    f"seat{seat}",
                    "text",
                    text,
                    ("bad_json",),
                    detail=kind,
                )
            elif kind == "duplicate-keys":
                text = dumps(message)[:-1] + ', "version": -1}'
                return Probe(
                    "near-valid",
                    game.key,
                    f"seat{seat}",
                    "text",
                    text,
                    ("bad_message",),
                    echo,
                    detail=kind,
                )
            elif kind == "huge-number":
                where = draw(st.sampled_from(["version", "draw", "catch"]))
                huge = int("9" * draw(st.integers(20, 3800)))
                if where == "version":
                    message["version"] = huge
                    expect = valid(game, seat, huge, action_id)
                else:
                    message["action"] = {where: huge}
                    expect = valid(game, seat, version, action_id)
            text = dumps(message, draw(st.booleans()))
            if raw is not None:
                text = text.replace('"__NAN__"', raw)
            return Probe(
                "near-valid", game.key, f"seat{seat}", "text", text, expect, echo, detail=kind
            )

        return build()

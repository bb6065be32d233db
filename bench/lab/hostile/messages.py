"""Probe categories of messages that are broken as messages: any JSON, wrong and unknown
types, text that is not JSON, binary frames, oversized and huge frames, invalid UTF-8."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from lab.hostile.pieces import Pieces
from lab.hostile.probes import Probe
from lab.hostile.protocol import FIELDS, FRAME_LIMIT, KNOWN_TYPES, MESSAGE_LIMIT, TYPES
from lab.hostile.values import (
    BINARY_SAMPLES,
    NOT_JSON,
    OTHER_TYPES,
    TEXT,
    dumps,
    fits,
    json_values,
    parses,
)


class Messages(Pieces):
    """Probes of messages broken as messages."""

    def random_json(self) -> st.SearchStrategy[Probe]:
        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game, who = draw(self.anywhere())
            value = draw(json_values())
            text = dumps(value, draw(st.booleans()))
            return Probe("random-json", game.key, who, "text", text)

        return build()

    def wrong_types(self) -> st.SearchStrategy[Probe]:
        """A known type with its fields (and others) of any type."""

        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game, who = draw(self.anywhere())
            kind = draw(st.sampled_from(TYPES))
            names = {
                "hello": ("token",),
                "action": ("version", "action_id", "action"),
                "ping": (),
                "ready": (),
            }[kind]
            message: dict[str, Any] = {"type": kind}
            for name in names:
                if draw(st.integers(0, 5)):
                    message[name] = draw(json_values(8))
            extra = draw(
                st.dictionaries(TEXT | st.sampled_from(FIELDS), json_values(4), max_size=2)
            )
            if kind in ("ping", "ready") or draw(st.booleans()):
                message.update({k: v for k, v in extra.items() if k != "type"})
            if kind in ("ping", "ready") and len(message) == 1:
                message["extra"] = draw(json_values(4))
            return Probe("wrong-types", game.key, who, "text", dumps(message, draw(st.booleans())))

        return build()

    def unknown_type(self) -> st.SearchStrategy[Probe]:
        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game, who = draw(self.anywhere())
            named = draw(st.booleans())
            if named:
                kind: Any = draw(
                    st.sampled_from(OTHER_TYPES) | TEXT.filter(lambda t: t not in KNOWN_TYPES)
                )
                expect = ("unknown_type",)
            else:
                kind = draw(json_values(4).filter(lambda v: not isinstance(v, str)))
                expect = ("bad_message",)
            fields = draw(st.dictionaries(st.sampled_from(FIELDS[1:]), json_values(4), max_size=3))
            text = dumps({"type": kind, **fields}, draw(st.booleans()))
            return Probe("unknown-type", game.key, who, "text", text, expect)

        return build()

    def not_json(self) -> st.SearchStrategy[Probe]:

        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game, who = draw(self.anywhere())
            text = draw(
                st.sampled_from(NOT_JSON)
                | st.text(max_size=60)
                | json_values(8)
                .map(dumps)
                .flatmap(lambda t: st.integers(0, max(0, len(t) - 1)).map(lambda k: t[:k]))
            )
            return Probe("not-json", game.key, who, "text", text, ("bad_json",))

        return build().filter(lambda p: not parses(p.text()) and fits(p.text()))

    def binary(self) -> st.SearchStrategy[Probe]:
        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game, who = draw(self.anywhere())
            data = draw(
                st.binary(max_size=200)
                | json_values(8).map(lambda v: dumps(v, False).encode())
                | st.sampled_from(BINARY_SAMPLES)
            )
            return Probe("binary", game.key, who, "binary", data)

        return build()

    def oversized(self) -> st.SearchStrategy[Probe]:
        """Over the 4096-byte message limit, under the 64 KiB frame limit."""

        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game, who = draw(self.anywhere())
            size = draw(st.integers(MESSAGE_LIMIT + 1, 60_000))
            how = draw(st.sampled_from(["padded", "junk", "multibyte", "binary"]))
            if how == "padded":
                text = dumps({"type": "ping", "pad": "x" * size})
            elif how == "junk":
                text = "x" * size
            else:  # few characters, many bytes
                text = "é" * (size // 2 + 1) if how == "multibyte" else "ä" * (size // 2 + 1)
            if how == "binary":
                return Probe(
                    "oversized", game.key, who, "binary", text.encode(), ("message_too_large",)
                )
            return Probe("oversized", game.key, who, "text", text, ("message_too_large",))

        return build()

    def huge_frame(self) -> st.SearchStrategy[Probe]:
        """Over 64 KiB: ``maumau serve`` drops the connection (close 1009); in-process
        there is no frame limit, and the message limit answers."""

        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game, who = draw(self.anywhere())
            size = draw(st.integers(FRAME_LIMIT + 1, 400_000))
            frame = draw(st.sampled_from(["text", "binary"]))
            text = dumps({"type": "ping", "pad": "y" * size})
            data: str | bytes = text if frame == "text" else text.encode()
            if self.live:
                return Probe("huge-frame", game.key, f"own-{who}", frame, data, ("close:1009",))
            return Probe("huge-frame", game.key, who, frame, data, ("message_too_large",))

        return build()

    def bad_utf8(self) -> st.SearchStrategy[Probe]:
        """A text frame that is not UTF-8: the WebSocket layer fails the connection with
        1007 (RFC 6455) before the application sees it.  Live only."""

        @st.composite
        def build(draw: st.DrawFn) -> Probe:
            game, who = draw(self.anywhere())
            bad = draw(
                st.sampled_from([b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"])
            )
            data = b'{"type": "ping", "x": "' + bad + b'"}' if draw(st.booleans()) else bad
            return Probe("bad-utf8", game.key, f"own-{who}", "raw-text", data, ("close:1007",))

        return build()

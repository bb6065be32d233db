"""Rule options: one validated, frozen :class:`Rules` object and the named presets.

The keys are the stable option keys of the rule book (docs/rules.md#options);
:meth:`Rules.from_dict` refuses unknown keys and bad values with a :class:`BadOption` that
names the key and what is allowed, and :meth:`Rules.to_dict` writes the same keys back.
:data:`OPTIONS` says what each key takes and :data:`PRESETS` names the presets: the one
list of both, which :func:`catalogue` gives to the browser client (``/options.json``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal

from maumau.engine.errors import BadOption

SCORING_MODES = ("single", "penalty", "deals", "reward")
MAU_MODES = ("auto", "catch", "off")
CARD_VALUE_SCHEMES = ("face", "traditional")


@dataclass(frozen=True, slots=True)
class Rules:
    """The effective options of a game.  Build with :meth:`from_dict` or :meth:`preset`."""

    deck: int = 52
    hand_size: int = 5
    draw_when_able: bool = True
    seven_draw: int = 2
    seven_stacking: bool = True
    eight_skips: bool = True
    nine_reverses: bool = False
    ace_skips: bool = False
    jack_on_jack: bool = False
    mau_penalty: str = "auto"
    mau_penalty_cards: int = 2
    scoring: str = "single"
    limit: int | None = None
    deals: int = 8
    jack_value: int = 20
    ace_value: int = 11
    card_values: str = "face"
    #: the preset these rules started from, if any (a preset may limit the player count)
    preset: str | None = None

    # --- construction ------------------------------------------------------------

    @classmethod
    def from_dict(cls, options: Mapping[str, Any] | None = None) -> Rules:
        """Rules from option keys, optionally with ``"preset"`` applied first."""
        if options is None:
            return cls()
        if not isinstance(options, Mapping):
            raise BadOption(f"options must be an object of option keys, not {options!r}")
        base = cls()
        preset = options.get("preset")
        if preset is not None or "preset" in options:
            base = cls.from_preset(preset)
        values: dict[str, Any] = {}
        for key, value in options.items():
            if key == "preset":
                continue
            if key not in _BY_KEY:
                raise BadOption(
                    f"unknown option key {key!r}; the keys are: {', '.join(sorted(_BY_KEY))}"
                )
            values[key] = _BY_KEY[key].check(value)
        return replace(base, **values)

    @classmethod
    def from_preset(cls, name: object) -> Rules:
        """The rules of a named preset (``standard``, ``penalty-100``, ...)."""
        if not isinstance(name, str) or name not in PRESETS:
            raise BadOption(
                f"preset: unknown preset {name!r}; the presets are: {', '.join(PRESETS)}"
            )
        return replace(cls(), preset=name, **PRESETS[name])

    def to_dict(self) -> dict[str, Any]:
        """Every option key with its effective value (``limit`` resolved for the mode)."""
        out = asdict(self)
        out.pop("preset")
        out["limit"] = self.effective_limit
        return out

    # --- derived values ------------------------------------------------------------

    @property
    def effective_limit(self) -> int:
        """``limit`` as given, else 150 for ``reward`` and 100 otherwise."""
        if self.limit is not None:
            return self.limit
        return 150 if self.scoring == "reward" else 100

    def check_players(self, players: int) -> None:
        """Raise :class:`BadOption` unless ``players`` seats may play under these rules."""
        if isinstance(players, bool) or not isinstance(players, int):
            raise BadOption(f"players: must be a whole number, not {players!r}")
        top = 8 if self.deck == 52 else 5
        if self.preset == "gamerules":
            top = 4
        if not 2 <= players <= top:
            what = (
                "the gamerules preset" if self.preset == "gamerules" else f"a {self.deck}-card deck"
            )
            raise BadOption(f"players: {what} takes 2 to {top} players, not {players}")
        left = self.deck - players * self.hand_size - 1
        if left < 5:
            raise BadOption(
                f"hand_size: {players} hands of {self.hand_size} from a {self.deck}-card deck "
                f"leave {left} cards in the draw pile; at least 5 are needed"
            )

    def card_value_table(self) -> tuple[int, ...]:
        """Value of each card int (0..51) in a hand left at the end of a round."""
        if self.card_values == "face":
            base = (2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 10, 10, 0)
        else:
            base = (0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 3, 4, 0)
        per_rank = list(base)
        per_rank[9] = self.jack_value
        per_rank[12] = self.ace_value
        return tuple(per_rank[c % 13] for c in range(52))


@dataclass(frozen=True, slots=True)
class Option:
    """One option key and the values it takes: a flag (true or false), a choice of
    ``values``, or a whole number from ``low`` to ``high``."""

    key: str
    kind: Literal["flag", "choice", "int"]
    values: tuple[Any, ...] = ()
    low: int = 0
    high: int = 0

    def check(self, value: object) -> Any:
        """``value`` if this option takes it, else :class:`BadOption` saying what it takes."""
        key = self.key
        if self.kind == "flag":
            if not isinstance(value, bool):
                raise BadOption(f"{key}: must be true or false, not {value!r}")
        elif self.kind == "choice":
            if not any(type(value) is type(a) and value == a for a in self.values):
                shown = ", ".join(repr(a) if isinstance(a, str) else str(a) for a in self.values)
                raise BadOption(f"{key}: must be one of {shown}, not {value!r}")
        elif (
            isinstance(value, bool)
            or not isinstance(value, int)
            or not self.low <= value <= self.high
        ):
            raise BadOption(
                f"{key}: must be a whole number from {self.low} to {self.high}, not {value!r}"
            )
        return value

    def to_json(self) -> dict[str, Any]:
        """The option as the catalogue lists it: key, kind and its values or range."""
        if self.kind == "choice":
            return {"key": self.key, "kind": self.kind, "values": list(self.values)}
        if self.kind == "int":
            return {"key": self.key, "kind": self.kind, "min": self.low, "max": self.high}
        return {"key": self.key, "kind": self.kind}


def _flag(key: str) -> Option:
    return Option(key, "flag")


def _choice(key: str, *values: Any) -> Option:
    return Option(key, "choice", values)


def _int(key: str, low: int, high: int) -> Option:
    return Option(key, "int", low=low, high=high)


#: every option key with the values it takes, in rule-book order
OPTIONS: tuple[Option, ...] = (
    _choice("deck", 52, 32),
    _int("hand_size", 3, 10),
    _flag("draw_when_able"),
    _choice("seven_draw", 2, 3),
    _flag("seven_stacking"),
    _flag("eight_skips"),
    _flag("nine_reverses"),
    _flag("ace_skips"),
    _flag("jack_on_jack"),
    _choice("mau_penalty", *MAU_MODES),
    _int("mau_penalty_cards", 1, 5),
    _choice("scoring", *SCORING_MODES),
    _int("limit", 50, 1000),
    _int("deals", 1, 50),
    _int("jack_value", 0, 50),
    _int("ace_value", 0, 50),
    _choice("card_values", *CARD_VALUE_SCHEMES),
)
_BY_KEY = {option.key: option for option in OPTIONS}

#: option keys, in rule-book order
OPTION_KEYS: tuple[str, ...] = tuple(f.name for f in fields(Rules) if f.name != "preset")

PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    "penalty-100": {"scoring": "penalty", "limit": 100},
    "penalty-150": {"scoring": "penalty", "limit": 150},
    "traditional": {
        "deck": 32,
        "nine_reverses": True,
        "card_values": "traditional",
        "scoring": "penalty",
        "limit": 100,
    },
    "gamerules": {
        "deck": 32,
        "nine_reverses": True,
        "ace_value": 10,
        "mau_penalty": "catch",
        "scoring": "reward",
        "limit": 150,
    },
}


def catalogue() -> dict[str, Any]:
    """The options and presets as data, for clients that offer them (the browser client
    reads this as ``/options.json``): every option with its kind, values or range and
    default (``limit`` resolved, as :meth:`Rules.to_dict` gives it), and every preset, in
    order, with its own keys and every option's value under it."""
    defaults = Rules().to_dict()
    return {
        "options": [{**option.to_json(), "default": defaults[option.key]} for option in OPTIONS],
        "presets": [
            {"name": name, "options": own, "rules": Rules.from_preset(name).to_dict()}
            for name, own in PRESETS.items()
        ],
    }

"""Every UI string key exists in all four languages, with the same placeholders, and
every key the client asks for exists (static keys found in the JS, and the families
of keys built from the engine's option keys, presets, levels and error codes)."""

from __future__ import annotations

import re

import pytest

from maumau.engine.options import SCORING_MODES, catalogue
from maumau.server.live.chat import REACTIONS
from support.languages import LANGUAGES, LOCALES, WEB, strings

PLACEHOLDER = re.compile(r"\{(\w+)\}")


def test_the_picker_offers_exactly_the_language_files() -> None:
    """The picker in index.html is the one list of languages (i18n.js and the tests read
    it): each has its file, and a locale for the tests."""
    assert LANGUAGES[0] == "en"  # the fallback, first
    assert sorted(p.stem for p in (WEB / "lang").glob("*.json")) == sorted(LANGUAGES)
    assert sorted(LOCALES) == sorted(LANGUAGES)
    html = (WEB / "index.html").read_text("utf-8")
    assert re.findall(r'<option value="(\w+)">', html) == list(LANGUAGES)  # no other <select>


def test_the_client_reads_the_languages_from_the_picker() -> None:
    i18n = (WEB / "js" / "i18n.js").read_text("utf-8")
    assert 'LANGUAGES = [...document.querySelectorAll("#lang-picker option")]' in i18n
    # and writes no list of its own (the codes quoted one after the other)
    listed = re.compile(r'"{}",\s*"{}"'.format(*LANGUAGES[:2]))
    copies = [p.name for p in (WEB / "js").glob("*.js") if listed.search(p.read_text("utf-8"))]
    assert copies == [], "a copy of the list of languages"


@pytest.mark.parametrize("code", LANGUAGES[1:])
def test_every_key_in_every_language(code: str) -> None:
    english, other = strings("en"), strings(code)
    assert sorted(set(english) - set(other)) == [], f"{code} lacks these keys"
    assert sorted(set(other) - set(english)) == [], f"{code} has keys English lacks"
    for key, text in other.items():
        assert text.strip(), f"{code}/{key} is empty"
        assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(english[key])), (
            f"{code}/{key}: placeholders differ from English"
        )


@pytest.mark.parametrize("code", LANGUAGES[1:])
def test_translations_are_not_english_copies(code: str) -> None:
    english, other = strings("en"), strings(code)
    # "computer · {level}" is Danish too; the hidden tab's title is the game's name
    same_on_purpose = {"seat.bot", "notice.title"}
    same = [
        k for k, v in other.items() if v == english[k] and len(v) > 12 and k not in same_on_purpose
    ]
    assert same == [], f"{code}: untranslated strings"


def used_keys() -> set[str]:
    """Keys the JS names literally: t("key"), tn("key", ...) and data-i18n in the HTML."""
    keys: set[str] = set()
    for path in (WEB / "js").glob("*.js"):
        text = path.read_text("utf-8")
        keys |= set(re.findall(r'\bt\(\s*"([\w.-]+)"', text))
        keys |= {
            f"{k}.{n}" for k in re.findall(r'\btn\(\s*"([\w.-]+)"', text) for n in ("one", "other")
        }
    html = (WEB / "index.html").read_text("utf-8")
    keys |= set(re.findall(r'data-i18n(?:-aria)?="([\w.-]+)"', html))
    return keys


#: the flags that How to play says inside another sentence (the draw, the Seven, the
#: Jack); every other flag switches an action card on, with a sentence "howto.<key>"
SENTENCES_OF_THEIR_OWN = {"draw_when_able", "seven_stacking", "jack_on_jack"}


def key_families() -> set[str]:
    """Keys the JS builds from values: options, presets, levels, suits, ranks..."""
    keys = {"opt.on", "opt.off"}
    served = catalogue()  # the options and presets as the client gets them (/options.json)
    for option in served["options"]:
        key = option["key"]
        keys |= {f"opt.{key}", f"opt.{key}.help"}
        keys |= {f"opt.{key}.{v}" for v in option.get("values", ())}
        if option["kind"] == "flag" and key not in SENTENCES_OF_THEIR_OWN:
            keys.add(f"howto.{key}")  # (an action card's own switch: How to play says it)
    keys |= {f"opt.scoring.{m}.help" for m in SCORING_MODES}
    for preset in served["presets"]:
        keys |= {f"preset.{preset['name']}", f"preset.{preset['name']}.help"}
    keys |= {f"level.{lv}" for lv in ("random", "easy", "normal", "hard")}
    keys |= {f"conn.{c}" for c in ("connecting", "online", "offline", "closed")}
    keys |= {f"suit.name.{s}" for s in "CDHS"}
    keys |= {f"rank.name.{r}" for r in "23456789TJQKA"}
    keys |= {f"rank.short.{r}" for r in "23456789JQKA"}
    keys |= {f"decided.{d}" for d in ("out", "fewest_points", "rounds_won", "draw", "out_reward")}
    keys |= {f"mau.{c}" for c in ("mau", "maumau")}
    keys |= {f"table.direction.{d}" for d in ("cw", "ccw")}
    for part in ("goal", "turn", "actions", "mau", "end"):
        keys |= {f"rules.{part}", f"rules.{part}.title"}
    for setting in ("grace_seconds", "turn_seconds", "bot_delay_ms", "next_round_seconds"):
        keys |= {f"set.{setting}", f"set.{setting}.help"}
    keys |= {"set.grace_seconds.none", "set.turn_seconds.none", "set.next_round_seconds.none"}
    keys |= {f"react.{key}" for key in REACTIONS}
    return keys


def test_the_client_offers_exactly_the_servers_reactions() -> None:
    text = (WEB / "js" / "reactions.js").read_text("utf-8")
    icons = re.search(r"const ICONS = \{(.*?)\n\};", text, re.S)
    phrases = re.search(r"export const REACTIONS = \[(.*?), \.\.\.Object\.keys\(ICONS\)\]", text)
    assert icons is not None and phrases is not None
    offered = re.findall(r'"(\w+)"', phrases.group(1)) + re.findall(
        r"^  (\w+): ", icons.group(1), re.M
    )
    assert offered == list(REACTIONS)


def test_every_key_the_client_uses_exists() -> None:
    english = strings("en")
    missing = sorted((used_keys() | key_families()) - set(english))
    assert missing == []


def test_error_translations_name_real_error_codes() -> None:
    from maumau.server.wire.errors import ENGINE_CODES, ERROR_CODES

    codes = {k.removeprefix("error.") for k in strings("en") if k.startswith("error.")}
    local = {"network", "start"}
    assert sorted(codes - set(ERROR_CODES) - set(ENGINE_CODES) - local) == []

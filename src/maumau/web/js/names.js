// Player names on the page (docs/protocol.md, "Display names").  Every name is shown in
// its own bidi isolate (<bdi>), so that a right-to-left name cannot reorder the text
// around it ("host · (you)"); the avatar shows the name's first grapheme (an emoji is
// one letter, not half of a surrogate pair); and a refused name is explained by the
// rule it breaks.  Names are always text nodes, never HTML.

import { h } from "./dom.js";
import { t } from "./i18n.js";

const graphemes = typeof Intl !== "undefined" && Intl.Segmenter
  ? new Intl.Segmenter(undefined, { granularity: "grapheme" })
  : null;

/** The first grapheme of `text` (by code point where Intl.Segmenter is missing). */
function firstGrapheme(text) {
  if (graphemes) {
    for (const { segment } of graphemes.segment(text)) return segment;
    return "";
  }
  return Array.from(text)[0] ?? "";
}

/** The avatar letter of `name`: its first grapheme, in capitals where that stays one. */
export function initial(name) {
  const first = firstGrapheme(String(name ?? "").trim());
  if (!first) return "?";
  const upper = first.toUpperCase();
  return firstGrapheme(upper) === upper ? upper : first; // "ß" stays "ß", not "SS"
}

// Computer players are named like "Ada (bot)" (docs/protocol.md, "Display names"); the
// server refuses that ending in a person's name, so a name that has it is a computer's.
// The page shows such a name without the (English) ending: the seat's translated
// computer badge says it instead.
const BOT_SUFFIX = /\s*\(bot\)$/u;

/** A name as the page shows it: a computer player's without its " (bot)" ending. */
export function shownName(name) {
  const text = String(name ?? "");
  const bare = text.replace(BOT_SUFFIX, "");
  return bare === "" ? text : bare;
}

/** A player's name as an element: isolated, wrapping (or clipped by its container's
 * style), with the whole name as its tooltip. */
export function nameEl(name, attrs = {}) {
  const text = shownName(name);
  return h("bdi", { class: "name", title: text, ...attrs }, text);
}

/** The avatar circle of `name`. */
export function avatar(name, attrs = {}) {
  return h("bdi", { class: "avatar", "aria-hidden": "true", ...attrs }, initial(name));
}

/** `name`, and "(you)" after it when it is this player's: as nodes. */
export function nameYou(name, you) {
  return you ? [nameEl(name), ` (${t("seat.you")})`] : [nameEl(name)];
}

const MARK = /(\uE000\d+\uE001)/;

/** t(key, params) as a list of strings and nodes: a parameter that is not a string or a
 * number (a name element, a list of nodes) goes in as it is, so names stay isolated
 * inside translated sentences.  The text reads exactly as t()'s would. */
export function tx(key, params = {}) {
  const nodes = [];
  const strings = {};
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === "string" || typeof value === "number") {
      strings[name] = value;
    } else {
      strings[name] = `\uE000${nodes.length}\uE001`;
      nodes.push(value);
    }
  }
  return t(key, strings)
    .split(MARK)
    .filter((part) => part !== "")
    .map((part) => (MARK.test(part) ? nodes[Number(part.slice(1, -1))] : part))
    .flat(Infinity);
}

/** A counted tx(): `key.one` for 1, else `key.other` (as i18n's tn()). */
export function txn(key, n, params = {}) {
  return tx(`${key}.${n === 1 ? "one" : "other"}`, { n, ...params });
}

/** `lists` of nodes joined by `separator` (for "Anna & Bo"). */
export function joinNodes(lists, separator) {
  return lists.flatMap((nodes, i) => (i ? [separator, nodes] : [nodes])).flat(Infinity);
}

// --- explaining a refused name ---------------------------------------------------------
// The server decides (maumau/server/wire/names.py); this only says which of its rules a
// refused name breaks, in the page's language.  When it cannot tell (a browser whose
// Unicode tables differ from the server's), the general sentence is shown.

const MAX_LENGTH = 32;
// (U+17B4 and U+17B5, combining marks, as a range: written after another character in
// the class they would read as one combined character)
const REFUSED = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\u17b4-\u17b5\u034f\u115f\u1160\u2800\u3164\uffa0]/u;
const VISIBLE = /[\p{L}\p{N}\p{P}\p{S}]/u;
const MARKS = /\p{M}{6,}/u;

function normalise(name) {
  return name.normalize("NFC").replace(/\p{Zs}+/gu, " ").replace(/^ | $/g, "");
}

/** The translation key of the rule `name` breaks, or null if it seems to break none. */
export function nameRule(name) {
  const text = normalise(String(name ?? ""));
  if (REFUSED.test(text)) return "name.rule.control";
  if (!VISIBLE.test(text)) return "name.rule.blank";
  if (Array.from(text).length > MAX_LENGTH) return "name.rule.long";
  if (MARKS.test(text)) return "name.rule.marks";
  const key = text.normalize("NFKC").toLowerCase().normalize("NFKC").replace(/ /g, "");
  if (/\(bot\)$|^bot\d+$/u.test(key)) return "name.rule.bot";
  return null;
}

/** What to show under a name field for an error `err` of creating or joining, as nodes
 * (null for an error that is not about the name). */
export function nameError(err, name) {
  if (err?.code === "name_taken") return tx("name.taken", { name: nameEl(normalise(name)) });
  if (err?.code !== "bad_name") return null;
  const rule = nameRule(name);
  return rule ? [t(rule, { max: MAX_LENGTH })] : [t("name.bad")];
}

/** The message line under a name field: `show(nodes)` marks the field invalid and says
 * why; typing clears it. */
export function nameMessage(input) {
  const line = h("p", { class: "field-error", id: `${input.id}-error`, role: "alert", hidden: true });
  const clear = () => {
    line.hidden = true;
    line.replaceChildren();
    input.removeAttribute("aria-invalid");
  };
  input.setAttribute("aria-describedby", line.id);
  input.addEventListener("input", clear);
  return {
    line,
    clear,
    show(nodes) {
      line.replaceChildren(...nodes);
      line.hidden = false;
      input.setAttribute("aria-invalid", "true");
      input.focus();
    },
  };
}

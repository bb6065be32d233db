// Log entries of a round (docs/record.md, the public log) in words.

import { cardName, rankLabel, suitSvg } from "./cards.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { nameEl, tx, txn } from "./names.js";

function cardChip(code) {
  return h("span", { class: `chip-card suit-${code[1]}` },
    h("span", { "aria-hidden": "true" }, rankLabel(code[0])),
    h("span", { html: suitSvg(code[1]) }),
    h("span", { class: "sr-only" }, cardName(code)));
}

/** The text of a list of strings and nodes. */
function textOf(parts) {
  return [parts].flat(Infinity).map((p) => (typeof p === "string" ? p : p.textContent)).join("");
}

/** A log entry as nodes (or as plain text with `plain`); `name(seat)` names a seat: a
 * player's name (shown isolated, see names.js), or nodes that show it already. */
export function describeEntry(entry, name, plain = false) {
  const card = (code) => (plain ? cardName(code) : cardChip(code));
  const who = (seat) => {
    const named = name(seat);
    if (plain) return typeof named === "string" ? named : textOf(named);
    return typeof named === "string" ? nameEl(named) : named;
  };
  const parts = [];
  if ("play" in entry) {
    parts.push(...tx("log.played", { name: who(entry.seat) }), " ", card(entry.play));
    if (entry.suit) parts.push(" ", t("log.named", { suit: t(`suit.name.${entry.suit}`) }));
    if (entry.call) parts.push(" ", h("strong", { class: "call" }, t("log.call", { word: t(`mau.${entry.call}`) })));
  } else if ("draw" in entry) {
    if (entry.cards?.length) {
      parts.push(...tx("log.drew_cards", { name: who(entry.seat) }), " ");
      entry.cards.forEach((c, i) => parts.push(i ? ", " : "", card(c)));
    } else {
      parts.push(...txn("log.drew", entry.draw, { name: who(entry.seat) }));
    }
  } else if ("penalty" in entry) {
    parts.push(...txn("log.penalty", entry.penalty, { name: who(entry.seat) }));
    if (entry.cards?.length) {
      parts.push(": ");
      entry.cards.forEach((c, i) => parts.push(i ? ", " : "", card(c)));
    }
  } else if ("pass" in entry) {
    parts.push(...tx("log.passed", { name: who(entry.seat) }));
  } else if ("catch" in entry) {
    parts.push(...tx("log.caught", { name: who(entry.seat), target: who(entry.catch) }));
  } else if ("reshuffle" in entry) {
    parts.push(t("log.reshuffle"));
  } else if ("out" in entry) {
    parts.push(...tx("log.out", { name: who(entry.out) }));
  }
  if (plain) return textOf(parts);
  return parts;
}

// Log entries of a round (docs/record.md, the public log) in words.

import { cardName, rankLabel, suitSvg } from "./cards.js";
import { h } from "./dom.js";
import { t, tn } from "./i18n.js";

function cardChip(code) {
  return h("span", { class: `chip-card suit-${code[1]}` },
    h("span", { "aria-hidden": "true" }, rankLabel(code[0])),
    h("span", { html: suitSvg(code[1]) }),
    h("span", { class: "sr-only" }, cardName(code)));
}

/** A log entry as nodes (or as plain text with `plain`); `name(seat)` names a seat. */
export function describeEntry(entry, name, plain = false) {
  const card = (code) => (plain ? cardName(code) : cardChip(code));
  const parts = [];
  if ("play" in entry) {
    parts.push(t("log.played", { name: name(entry.seat) }), " ", card(entry.play));
    if (entry.suit) parts.push(" ", t("log.named", { suit: t(`suit.name.${entry.suit}`) }));
    if (entry.call) parts.push(" ", h("strong", { class: "call" }, t("log.call", { word: t(`mau.${entry.call}`) })));
  } else if ("draw" in entry) {
    if (entry.cards?.length) {
      parts.push(t("log.drew_cards", { name: name(entry.seat) }), " ");
      entry.cards.forEach((c, i) => parts.push(i ? ", " : "", card(c)));
    } else {
      parts.push(tn("log.drew", entry.draw, { name: name(entry.seat) }));
    }
  } else if ("penalty" in entry) {
    parts.push(tn("log.penalty", entry.penalty, { name: name(entry.seat) }));
    if (entry.cards?.length) {
      parts.push(": ");
      entry.cards.forEach((c, i) => parts.push(i ? ", " : "", card(c)));
    }
  } else if ("pass" in entry) {
    parts.push(t("log.passed", { name: name(entry.seat) }));
  } else if ("catch" in entry) {
    parts.push(t("log.caught", { name: name(entry.seat), target: name(entry.catch) }));
  } else if ("reshuffle" in entry) {
    parts.push(t("log.reshuffle"));
  } else if ("out" in entry) {
    parts.push(t("log.out", { name: name(entry.out) }));
  }
  if (plain) return parts.map((p) => (typeof p === "string" ? p : p.textContent)).join("");
  return parts;
}

// Log entries of a round (docs/protocol.md, "Log entries") in words: what happened and
// why — who was skipped, that the direction reversed, why a penalty was drawn, and when
// the computer moved for a player (the turn timer, or a stand-in for an absent player).

import { cardName, rankLabel, suitSvg } from "./cards.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { nameEl, shownName, tx, txn } from "./names.js";

/** A card as a small chip: rank and suit, its name for screen readers. */
export function cardChip(code) {
  return h("span", { class: `chip-card suit-${code[1]}` },
    h("span", { "aria-hidden": "true" }, rankLabel(code[0])),
    h("span", { html: suitSvg(code[1]) }),
    h("span", { class: "sr-only" }, cardName(code)));
}

/** The text of a list of strings and nodes. */
function textOf(parts) {
  return [parts].flat(Infinity).map((p) => (typeof p === "string" ? p : p.textContent)).join("");
}

/** Punctuation kept with the word or card before it: a comma or a colon never wraps
 * onto a line of its own. */
function glued(node, mark, plain) {
  return plain ? [node, mark] : h("span", { class: "log-glue" }, node, mark);
}

/** Cards as a list: "7♠, Q♦" with each comma kept with its card. */
function cardList(cards, card, plain) {
  const parts = [];
  cards.forEach((c, i) => {
    if (i) parts.push(" ");
    parts.push(i < cards.length - 1 ? glued(card(c), ",", plain) : card(c));
  });
  return parts;
}

/** Why a penalty was drawn (entry.reason), as nodes; `who(seat)` names a seat. */
function penaltyReason(entry, who) {
  if (entry.reason === "caught" && entry.by !== undefined) return tx("log.reason.caught", { name: who(entry.by) });
  if (entry.reason === "missed" || entry.reason === "false") return [t(`log.reason.${entry.reason}`)];
  return [];
}

/** A log entry as nodes (or as plain text with `plain`); `name(seat)` names a seat: a
 * player's name (shown isolated, see names.js), or nodes that show it already. */
export function describeEntry(entry, name, plain = false) {
  const card = (code) => (plain ? cardName(code) : cardChip(code));
  const named = (seat) => {
    const shown = name(seat);
    if (plain) return typeof shown === "string" ? shownName(shown) : textOf(shown);
    return typeof shown === "string" ? nameEl(shown) : shown;
  };
  // a move the server made for the seat: "the computer (for Sven, time ran out)"
  const mover = typeof entry.by === "string" ? entry.by : null;
  const actor = (seat) => {
    if (!mover) return named(seat);
    const phrase = tx(`log.by.${mover}`, { name: named(seat) });
    return plain ? textOf(phrase) : h("span", { class: "log-computer" }, phrase);
  };
  const parts = [];
  if ("play" in entry) {
    parts.push(...tx("log.played", { name: actor(entry.seat) }), " ", card(entry.play));
    if (entry.suit) parts.push(" ", t("log.named", { suit: t(`suit.name.${entry.suit}`) }));
    if (entry.call) parts.push(" ", h("strong", { class: "call" }, t("log.call", { word: t(`mau.${entry.call}`) })));
    if (entry.skipped !== undefined) parts.push(" · ", ...tx("log.skipped", { name: named(entry.skipped) }));
    if (entry.reversed) parts.push(" · ", t("log.reversed"));
  } else if ("draw" in entry) {
    if (entry.cards?.length) {
      parts.push(...tx("log.drew_cards", { name: actor(entry.seat) }), " ", ...cardList(entry.cards, card, plain));
    } else {
      parts.push(...txn("log.drew", entry.draw, { name: actor(entry.seat) }));
    }
  } else if ("penalty" in entry) {
    // "Ana drew 2 penalty cards — forgot to say Mau: 7♠, Q♦" (the drawer sees the cards)
    const said = txn("log.penalty", entry.penalty, { name: named(entry.seat) });
    const why = penaltyReason(entry, named);
    const cards = entry.cards?.length ? entry.cards : null;
    const glueLast = (list, mark) => [...list.slice(0, -1), glued(list[list.length - 1], mark, plain)];
    if (why.length) {
      parts.push(...glueLast(said, "\u00a0—"), " ", ...(cards ? glueLast(why, ":") : why));
    } else {
      parts.push(...(cards ? glueLast(said, ":") : said));
    }
    if (cards) parts.push(" ", ...cardList(cards, card, plain));
  } else if ("pass" in entry) {
    const key = entry.kept ? "log.kept" : entry.accept ? "log.accepted" : "log.passed";
    parts.push(...tx(key, { name: actor(entry.seat) }));
  } else if ("catch" in entry) {
    parts.push(...tx("log.caught", { name: actor(entry.seat), target: named(entry.catch) }));
  } else if ("reshuffle" in entry) {
    parts.push(t("log.reshuffle"));
  } else if ("out" in entry) {
    parts.push(...tx("log.out", { name: named(entry.out) }));
  }
  if (plain) return textOf(parts);
  return parts;
}

/** Why a player can be caught now (view.catchable), as nodes: "Alex forgot to say
 * “Mau”", or that they called the wrong word; `names` is view.players or a function
 * seat -> name.  Null when nobody can be caught. */
export function catchReason(view, names) {
  const seat = view.catchable;
  if (seat === null || seat === undefined) return null;
  const nameOf = typeof names === "function" ? names : (s) => names[s];
  const shown = nameOf(seat);
  const who = typeof shown === "string" ? nameEl(shown) : shown;
  const played = [...(view.log || [])].reverse().find((e) => "play" in e && e.seat === seat);
  const due = view.step === "wait" || view.counts?.[seat] === 0 ? "maumau" : "mau";
  if (played?.call) return tx("catch.wrong", { name: who, word: t(`mau.${due}`), said: t(`mau.${played.call}`) });
  return tx("catch.forgot", { name: who, word: t(`mau.${due}`) });
}

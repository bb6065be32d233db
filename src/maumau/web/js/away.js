// Coming back after the computer played for you (a stand-in while you were away):
// the page says what it played, once, when you reconnect.
//
// The server marks a stand-in's moves ("by": "stand_in", docs/protocol.md "Log
// entries"); the first state of a connection brings the whole round's log.  This
// browser remembers how much of the round's log it has shown, so a notice lists only
// the moves made for this seat since then.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { describeEntry } from "./log.js";

const connections = new WeakMap(); // page -> the welcome of the connection last seen

function storageKey(gameId) {
  return `maumau.away.${gameId}`;
}

function readSeen(gameId) {
  try {
    const stored = JSON.parse(localStorage.getItem(storageKey(gameId)) || "null");
    return stored && typeof stored.round === "number" && typeof stored.seen === "number" ? stored : null;
  } catch {
    return null;
  }
}

function writeSeen(gameId, round, seen) {
  try {
    localStorage.setItem(storageKey(gameId), JSON.stringify({ round, seen }));
  } catch {
    // private mode without storage: a notice may be shown again after a reload
  }
}

/** The entries of `log` from `start` on that a stand-in made for `seat`. */
export function movesMadeFor(log, seat, start = 0) {
  return log.slice(start).filter((e) => e.by === "stand_in" && e.seat === seat);
}

let dismissShown = null; // closes the notice on screen, with its listeners

function showNotice(entries, name) {
  dismissShown?.();
  // it goes away with its button, Escape, or a click anywhere else (it never stands
  // between the player and the table)
  const dismiss = () => {
    dismissShown = null;
    notice.remove();
    document.removeEventListener("pointerdown", outside, true);
    document.removeEventListener("keydown", escape, true);
  };
  const outside = (e) => { if (!notice.contains(e.target)) dismiss(); };
  const escape = (e) => { if (e.key === "Escape") dismiss(); };
  document.addEventListener("pointerdown", outside, true);
  document.addEventListener("keydown", escape, true);
  dismissShown = dismiss;
  const close = h("button", { type: "button", class: "away-dismiss", onclick: dismiss }, t("away.dismiss"));
  const notice = h("section", { id: "away", class: "away-notice", role: "region", "aria-labelledby": "away-title" },
    h("h2", { id: "away-title" }, t("away.title")),
    h("p", { role: "status" }, t("away.intro")),
    // (the heading says the computer made them: each line says only what was played)
    h("ul", { class: "away-moves" }, entries.map(({ by: _by, ...e }) => h("li", {}, describeEntry(e, name)))),
    close);
  document.body.append(notice);
}

/** Called with every `state` (`view.log` is the round's log so far): on the first state
 * of a connection, tell the player what was played for them since this browser last
 * showed the round. */
export function noteAway(page, view) {
  const seat = page.seat;
  const gameId = page.gameId;
  const seen = readSeen(gameId);
  const fresh = connections.get(page) !== page.me;
  connections.set(page, page.me);
  // (not once the round is over: its summary or the result tells the rest)
  if (fresh && seat !== null && seat !== undefined && view.step !== "over" && !view.finished) {
    const start = seen && seen.round === view.round ? seen.seen : 0;
    const moves = movesMadeFor(view.log, seat, start);
    if (moves.length) showNotice(moves, (s) => view.players[s] ?? `#${s}`);
  }
  writeSeen(gameId, view.round, view.log.length);
}

// Muting another player, for this browser only (docs/protocol.md, "Chat and reactions"):
// the muted seats of a table are remembered in localStorage, and a seat's menu (the "⋯"
// on an opponent's box) mutes or unmutes it.  The muted player's chat lines and reactions
// are hidden here; nobody else is told.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { nameEl, shownName, tx } from "./names.js";

const key = (gameId) => `maumau.mute.${gameId}`;
/** A muted seat's mark: a speech bubble struck through (this project's own drawing). */
const MUTED = '<svg viewBox="0 0 24 24"><path d="M4 4.5h16a2 2 0 0 1 2 2v9a2 2 0 0 1-2 2h-9l-5 4v-4H4a2 2 0 0 1-2-2v-9a2 2 0 0 1 2-2z" fill="currentColor" opacity="0.55"/><path d="M3 3l18 18" stroke="#f07a5a" stroke-width="2.4" stroke-linecap="round"/></svg>';

/** The seats muted at table `gameId`. */
export function loadMuted(gameId) {
  try {
    const seats = JSON.parse(localStorage.getItem(key(gameId)) || "[]");
    return new Set(Array.isArray(seats) ? seats.filter((s) => Number.isInteger(s)) : []);
  } catch {
    return new Set();
  }
}

export function saveMuted(gameId, seats) {
  if (seats.size) localStorage.setItem(key(gameId), JSON.stringify([...seats].sort()));
  else localStorage.removeItem(key(gameId));
}

/** The "⋯" button of an opponent's box that opens its seat menu. */
export function seatMenuButton(chat, seat, name) {
  const muted = chat.muted.has(seat);
  return h("button", {
    type: "button", class: `seat-menu-btn ${muted ? "muted" : ""}`, dataset: { focus: `seat-menu-${seat}`, seat },
    "aria-label": t("seat.menu", { name: shownName(name) }), "aria-haspopup": "dialog",
    title: muted ? t("mute.muted") : t("seat.menu", { name: shownName(name) }),
    onclick: () => openSeatMenu(chat, seat, name),
  }, muted ? h("span", { class: "muted-icon", "aria-hidden": "true", html: MUTED }) : "⋯");
}

/** A seat's menu: mute or unmute its player's chat and reactions. */
export function openSeatMenu(chat, seat, name) {
  document.getElementById("seat-menu")?.remove();
  const muted = chat.muted.has(seat);
  const dialog = h("dialog", { id: "seat-menu", class: "sheet seat-menu", "aria-labelledby": "seat-menu-title" },
    h("div", { class: "sheet-body" },
      h("h2", { id: "seat-menu-title" }, nameEl(name)),
      h("button", { type: "button", class: "ghost close", "aria-label": t("dialog.close"), onclick: () => dialog.close() }, "×"),
      h("p", { class: "help" }, t(muted ? "mute.help_muted" : "mute.help")),
      h("button", {
        type: "button", class: "button primary", id: "mute-toggle",
        onclick: () => { chat.setMuted(seat, !muted); dialog.close(); },
      }, tx(muted ? "mute.off" : "mute.on", { name: nameEl(name) }))));
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
}

// Notices while the tab is hidden: your turn, the next round starting, a rematch offered.
//
// The tab's title and favicon change ("● Your turn — Mau Mau", favicon-turn.svg) until
// the tab is looked at again (visibilitychange back to visible restores them). If the
// player allowed it with the button in the settings menu (never asked on load), a
// system notification says it too: one per table, each replacing the last (its tag),
// closed when the tab is looked at; clicking it brings the tab forward.

import { onLanguage, t } from "./i18n.js";

const WANT = "maumau.notify"; // "1": the player turned notifications on here
const TURN_ICON = "/favicon-turn.svg";
const KINDS = ["turn", "round", "rematch"];

/** "unsupported", "blocked", "ask" (allowed by nobody yet, or turned off here) or "on". */
export function notifyState() {
  if (!("Notification" in window)) return "unsupported";
  if (Notification.permission === "denied") return "blocked";
  if (Notification.permission === "granted" && wanted()) return "on";
  return "ask";
}

function wanted() {
  try {
    return localStorage.getItem(WANT) === "1";
  } catch {
    return false;
  }
}

function want(on) {
  try {
    if (on) localStorage.setItem(WANT, "1");
    else localStorage.removeItem(WANT);
  } catch {
    // no storage: notifications stay off after a reload
  }
}

/** The settings button's press: ask the browser (a user gesture), or turn off again. */
export async function toggleNotify() {
  const state = notifyState();
  if (state === "on") {
    want(false);
    return notifyState();
  }
  if (state !== "ask") return state;
  const answer = Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
  if (answer === "granted") want(true);
  return notifyState();
}

export class Notices {
  constructor(gameId) {
    this.tag = `maumau-${gameId}`;
    this.kind = null; // the notice shown while hidden
    this.note = null;
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden) this.clear();
    });
    // a language change sets the page's title again: keep the notice's
    onLanguage(() => this.showTitle());
  }

  /** Say `kind` ("turn", "round", "rematch") if the tab is hidden. */
  show(kind) {
    if (!document.hidden || !KINDS.includes(kind)) return;
    this.kind = kind; // the newest event is said: it replaces the one before
    this.showTitle();
    this.setIcon(TURN_ICON);
    this.notify(kind);
  }

  showTitle() {
    if (this.kind) document.title = t("notice.title", { what: t(`notice.${this.kind}`) });
  }

  notify(kind) {
    if (notifyState() !== "on") return;
    try {
      const note = new Notification(t(`notice.${kind}`), {
        body: t("notice.body"), tag: this.tag, icon: TURN_ICON, lang: document.documentElement.lang,
      });
      note.onclick = () => {
        window.focus();
        note.close();
      };
      this.note = note;
    } catch {
      // a browser that only shows notifications from a service worker: the title says it
    }
  }

  /** The tab is looked at: the title, the favicon and the notification go back. */
  clear() {
    if (!this.kind) return;
    this.kind = null;
    document.title = t("app.title");
    this.setIcon(null);
    this.note?.close();
    this.note = null;
  }

  setIcon(href) {
    const link = document.querySelector("link[rel~='icon']");
    if (!link) return;
    if (!link.dataset.plain) link.dataset.plain = link.getAttribute("href");
    link.setAttribute("href", href ?? link.dataset.plain);
  }
}

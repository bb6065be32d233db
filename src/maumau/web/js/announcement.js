// The operator's announcement (`maumau admin announce`, docs/protocol.md): a banner at
// the top of every page until it expires, is withdrawn or is dismissed. Its text is the
// operator's words: always set as text, never as markup.

import { api } from "./api.js";
import { t } from "./i18n.js";

let timer = null;
let dismissed = null; // the text the player closed: shown again only if it changes

function banner() {
  return document.getElementById("announcement");
}

/** Show an `announcement` message ({text, expires}); an empty text hides the banner. */
export function showAnnouncement(msg) {
  const el = banner();
  clearTimeout(timer);
  const text = typeof msg?.text === "string" ? msg.text : "";
  const left = typeof msg?.expires === "number" ? msg.expires * 1000 - Date.now() : Infinity;
  if (!text || left <= 0 || text === dismissed) {
    el.hidden = true;
    return;
  }
  el.querySelector(".announcement-text").textContent = text;
  el.hidden = false;
  if (left !== Infinity) timer = setTimeout(() => { el.hidden = true; }, Math.min(left, 2 ** 31 - 1));
}

/** Set up the banner's dismiss button and show the current announcement, if any. */
export async function loadAnnouncement() {
  const el = banner();
  const close = el.querySelector(".announcement-close");
  close.setAttribute("aria-label", t("announcement.dismiss"));
  close.onclick = () => {
    dismissed = el.querySelector(".announcement-text").textContent;
    el.hidden = true;
  };
  try {
    showAnnouncement(await api("GET", "/api/announcement"));
  } catch {
    // no announcement shown: the page works without it
  }
}

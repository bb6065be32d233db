// The game server out of reach (the installed app opened offline, the server
// restarting): "offline — reconnecting" in the top bar's connection badge, a notice
// where the page would be, and requests asked again until the server answers.

import { h } from "./dom.js";
import { t } from "./i18n.js";

const MAX_WAIT = 8000;

/** The connection badge says "Offline — reconnecting…". */
export function showOffline() {
  const el = document.getElementById("conn");
  el.hidden = false;
  el.className = "conn offline";
  el.dataset.i18n = "conn.no_server"; // translated again on a language change
  el.textContent = t("conn.no_server");
  document.body.dataset.conn = "no_server";
}

function hideOffline() {
  if (document.body.dataset.conn !== "no_server") return; // the table's connection has it
  document.getElementById("conn").hidden = true;
  delete document.body.dataset.conn;
}

/** The notice shown instead of a page that needs the server. */
export function offlineNotice() {
  return h("section", { class: "panel notice offline-notice", id: "offline", role: "status" },
    h("h1", { dataset: { i18n: "offline.title" } }, t("offline.title")),
    h("p", { dataset: { i18n: "offline.text" } }, t("offline.text")));
}

/** `request()`'s answer; while it fails for the network (an ApiError "network"), the
 * offline state is shown, `onOffline()` is called once, and it is asked again after a
 * growing wait (at once when the browser is back online or the tab shown again).
 * Other errors are thrown. */
export async function reachServer(request, onOffline = () => {}) {
  for (let attempt = 0; ; attempt++) {
    try {
      const answer = await request();
      if (attempt) hideOffline();
      return answer;
    } catch (err) {
      if (err?.code !== "network") {
        if (attempt) hideOffline();
        throw err;
      }
    }
    showOffline();
    if (attempt === 0) onOffline();
    await pause(Math.min(MAX_WAIT, 400 * 2 ** attempt));
  }
}

function pause(ms) {
  return new Promise((resolve) => {
    const visible = () => document.visibilityState === "visible" && done();
    const done = () => {
      clearTimeout(timer);
      removeEventListener("online", done);
      document.removeEventListener("visibilitychange", visible);
      resolve();
    };
    const timer = setTimeout(done, ms);
    addEventListener("online", done);
    document.addEventListener("visibilitychange", visible);
  });
}

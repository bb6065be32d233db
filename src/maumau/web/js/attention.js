// What calls a player back to the table: each game message's cues (cues.js) are sounded
// (sound.js), and the ones that want the player (your turn, the next round, a rematch)
// become notices while the tab is hidden (notices.js). Also the two switches of the
// settings menu on a table's page: sound and vibration, and notifications.

import { cuesOf } from "./cues.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { Notices, notifyState, toggleNotify } from "./notices.js";
import { onSoundChange, play, setSoundOn, setSpectator, soundOn } from "./sound.js";

// the cues that are notices, the more important first
const NOTICES = [
  ["turn", "turn"],
  ["seven", "turn"],
  ["round_start", "round"],
  ["rematch", "rematch"],
];
const CUED = new Set(["state", "round_end", "game_end", "rematch"]);

export class Attention {
  constructor(page) {
    this.page = page;
    this.notices = new Notices(page.gameId);
    this.fresh = true; // the next state is the first after hello: it catches up
    installSwitches();
  }

  /** Take server message `msg` before the page does (page.state is still the last). */
  receive(msg) {
    if (msg.type === "welcome") {
      this.fresh = true;
      setSpectator(msg.seat === null);
      return;
    }
    if (!CUED.has(msg.type)) return;
    const before = msg.type === "state" && this.fresh ? null : this.page.state;
    if (msg.type === "state") this.fresh = false;
    const cues = cuesOf(msg, before, this.page.seat);
    for (const cue of cues) play(cue);
    const notice = NOTICES.find(([cue]) => cues.includes(cue));
    if (notice) this.notices.show(notice[1]);
  }
}

let installed = false;

/** The sound switch and the notification button, added to the settings menu. */
function installSwitches() {
  const panel = document.querySelector("#settings .settings-panel");
  if (installed || !panel) return;
  installed = true;
  const sound = h("input", { id: "sound-on", type: "checkbox" });
  const showSound = () => { sound.checked = soundOn(); };
  sound.addEventListener("change", () => setSoundOn(sound.checked));
  onSoundChange(showSound);
  showSound();
  const button = h("button", { type: "button", class: "ghost small", id: "notify-btn" },
    h("span", { class: "notify-mark", "aria-hidden": "true" }),
    h("span", { dataset: { i18n: "settings.notify" } }, t("settings.notify")));
  const help = h("span", { class: "notify-help", id: "notify-help" });
  button.setAttribute("aria-describedby", "notify-help");
  const showNotify = (state) => {
    button.setAttribute("aria-pressed", state === "on" ? "true" : "false");
    button.disabled = state === "blocked" || state === "unsupported";
    const key = `settings.notify_help.${state === "on" ? "ask" : state}`;
    help.dataset.i18n = key;
    help.textContent = t(key);
  };
  button.addEventListener("click", async () => showNotify(await toggleNotify()));
  showNotify(notifyState());
  // the browser's permission may have changed meanwhile (its site settings): look again
  document.getElementById("settings")?.addEventListener("toggle", () => showNotify(notifyState()));
  panel.append(
    h("label", { class: "sound-pick" }, sound, " ", h("span", { dataset: { i18n: "settings.sound" } }, t("settings.sound"))),
    h("div", { class: "notify-pick" }, button, help));
}

// "Play now" on the home page, for someone alone: one click creates a table with the
// rules of the last table created in this browser (or the penalty points 100 preset),
// adds three computer players (the level last chosen in a lobby, or normal), starts the
// game and opens the table. A refusal is said under the button, in the server's words
// where no translation has them; a table already made is linked from there.

import { api } from "./api.js";
import { h } from "./dom.js";
import { has, t } from "./i18n.js";
import { nameError } from "./names.js";
import { OPTIONS, PRESETS } from "./options.js";
import { saveName, savePlayed, saveToken, savedBotLevel, savedName, savedPlayed } from "./seats.js";

export const DEFAULT_PLAYED = { preset: "penalty-100", options: {}, settings: {} };
const LEVELS = ["random", "easy", "normal", "hard"];
const BOTS = 3;

/** The rules to play with: the last table's, kept to what the form knows. */
export function lastPlayed(settingKeys) {
  const saved = savedPlayed();
  if (!saved || !(saved.preset in PRESETS)) return DEFAULT_PLAYED;
  const keys = new Set(OPTIONS.map((o) => o.key));
  const plain = (v) => v === null || ["number", "boolean", "string"].includes(typeof v);
  const pick = (obj, allowed) =>
    Object.fromEntries(Object.entries(obj && typeof obj === "object" ? obj : {})
      .filter(([k, v]) => allowed.has(k) && plain(v)));
  return { preset: saved.preset, options: pick(saved.options, keys), settings: pick(saved.settings, new Set(settingKeys)) };
}

function botLevel() {
  const level = savedBotLevel();
  return LEVELS.includes(level) ? level : "normal";
}

/** The error in words: the translated code, else the server's own message. */
function say(err) {
  const key = `error.${err?.code}`;
  return err?.code && has(key) ? t(key) : err?.message || String(err);
}

/** The Play now panel; `name` is the home form's name field (its value, if typed, is
 * the player's name), `nameLine` its message line. */
export function playNowBlock({ name, nameLine, settingKeys }) {
  const played = lastPlayed(settingKeys);
  const level = botLevel();
  const own = Object.keys(played.options).length > 0;
  const error = h("p", { class: "play-now-error", id: "play-now-error", role: "alert", hidden: true });
  const button = h("button", { class: "primary big", type: "button", id: "play-now", onclick: () => go() }, t("play_now.button"));

  function fail(err, table = null) {
    error.replaceChildren(say(err));
    if (table) error.append(" ", h("a", { href: table, id: "play-now-table" }, t("play_now.open_table")));
    error.hidden = false;
    button.disabled = false;
    button.textContent = t("play_now.button");
  }

  async function go() {
    const player = name.value.trim() || savedName() || t("play_now.name");
    error.hidden = true;
    button.disabled = true;
    button.textContent = t("play_now.starting");
    let seat;
    try {
      seat = await api("POST", "/api/games", { body: { name: player, ...played } });
    } catch (err) {
      const why = nameError(err, player);
      if (why) nameLine.show(why);
      fail(err);
      return;
    }
    saveToken(seat.game_id, seat.token);
    saveName(player);
    savePlayed(played);
    const id = encodeURIComponent(seat.game_id);
    try {
      const info = await api("GET", `/api/games/${id}`);
      const bots = Math.min(BOTS, info.max_seats - info.seats.length);
      for (let i = 0; i < bots; i++) await api("POST", `/api/games/${id}/bots`, { body: { level }, token: seat.token });
      await api("POST", `/api/games/${id}/start`, { token: seat.token });
    } catch (err) {
      fail(err, seat.invite); // the table is made: its lobby can add players and start
      return;
    }
    location.assign(seat.invite);
  }

  return h("div", { class: "panel play-now" },
    h("div", { class: "play-now-text" },
      h("h2", {}, t("play_now.title")),
      h("p", { class: "help", id: "play-now-rules" },
        t("play_now.rules", { preset: t(`preset.${played.preset}`), level: t(`level.${level}`) }),
        own ? ` ${t("play_now.own_rules")}` : "")),
    button,
    error);
}

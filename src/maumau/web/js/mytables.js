// The player's open tables on the home page: every table this browser holds a seat
// token for (seats.js) is looked up with GET /api/games/{id}; the ones in the lobby or
// being played are listed with their players and a link back, so that a closed tab
// does not lose the game.  Closed and unknown tables are forgotten; finished ones are
// kept (their token asks for the rematch) but not listed.

import { api } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { joinNodes, nameEl } from "./names.js";
import { forgetToken, savedSeats } from "./seats.js";

const LIVE = ["playing", "lobby"];

// the last answer, shown at once when the page is drawn again (a language change)
let known = [];

async function lookUp(gameId) {
  try {
    const info = await api("GET", `/api/games/${encodeURIComponent(gameId)}`);
    if (info.status === "closed") forgetToken(gameId);
    return info;
  } catch (err) {
    if (err.code === "unknown_game") forgetToken(gameId);
    return null; // offline: keep the token, list nothing
  }
}

function row(info) {
  return h("li", { class: "my-table", dataset: { game: info.game_id, status: info.status } },
    h("span", { class: "my-table-text" },
      h("strong", { class: "my-table-status" },
        info.status === "lobby" ? t("home.tables.lobby") : t("home.tables.playing")),
      h("span", { class: "my-table-players" }, joinNodes(info.seats.map((s) => [nameEl(s.name)]), ", "))),
    h("a", { class: "button small", href: info.invite }, t("home.tables.open")));
}

function fill(section) {
  const list = section.querySelector("ol");
  list.replaceChildren(...known.map(row));
  section.hidden = known.length === 0;
}

/** The section listing the open tables (hidden while there is none); it fills itself. */
export function myTables() {
  const section = h("section", { class: "panel my-tables", id: "my-tables", "aria-labelledby": "my-tables-title" },
    h("h2", { id: "my-tables-title" }, t("home.tables.title")),
    h("ol", { class: "my-table-list" }));
  fill(section);
  Promise.all(savedSeats().map(([gameId]) => lookUp(gameId))).then((infos) => {
    known = infos
      .filter((info) => info && LIVE.includes(info.status))
      .sort((a, b) => LIVE.indexOf(a.status) - LIVE.indexOf(b.status));
    fill(section);
  });
  return section;
}

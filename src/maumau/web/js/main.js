// Start-up: language, suit colours, then the page for this address.

import { loadAnnouncement } from "./announcement.js";
import { api } from "./api.js";
import { GamePage } from "./game.js";
import { renderHome } from "./home.js";
import { LANGUAGES, onLanguage, preferredLanguage, setLanguage, t } from "./i18n.js";
import { registerWorker } from "./install.js";
import { myTables } from "./mytables.js";
import { reachServer } from "./offline.js";
import { fetchOptions, useOptions } from "./options.js";
import { showError } from "./toast.js";

const FOUR = "maumau.fourColour";

function setupPicker() {
  const picker = document.getElementById("lang-picker");
  picker.addEventListener("change", () => setLanguage(picker.value, true));
  onLanguage((code) => { picker.value = code; });
  const four = document.getElementById("four-colour");
  four.checked = localStorage.getItem(FOUR) === "1";
  document.body.classList.toggle("four-colour", four.checked);
  four.addEventListener("change", () => {
    localStorage.setItem(FOUR, four.checked ? "1" : "0");
    document.body.classList.toggle("four-colour", four.checked);
  });
  // The settings menu closes like any menu: a click elsewhere or Escape.
  const menu = document.getElementById("settings");
  addEventListener("click", (e) => {
    if (menu.open && !menu.contains(e.target)) menu.open = false;
  });
  menu.addEventListener("keydown", (e) => {
    if (e.key !== "Escape" || !menu.open) return;
    e.stopPropagation();
    menu.open = false;
    menu.querySelector("summary").focus();
  });
}

async function start() {
  registerWorker();
  setupPicker();
  const wanted = new URLSearchParams(location.search).get("lang");
  const [, options] = await Promise.all([
    setLanguage(LANGUAGES.includes(wanted) ? wanted : preferredLanguage(), LANGUAGES.includes(wanted)),
    fetchOptions(),
  ]);
  useOptions(options); // the engine's options and presets (after the language: their labels)
  loadAnnouncement();
  const root = document.getElementById("app");
  const match = location.pathname.match(/^\/g\/([A-Za-z0-9_-]+)\/?$/);
  if (match) {
    const page = new GamePage(root, match[1]);
    onLanguage(() => page.render());
    await page.start();
  } else {
    const home = () => renderHome(root, { showError });
    onLanguage(home);
    home();
    // out of reach: the offline state until the server answers, then the open tables
    // are looked up again (the rest of the page, and what was typed there, stays)
    let offline = false;
    reachServer(() => api("GET", "/api/health"), () => { offline = true; })
      .catch(() => {}) // it answered, with an error: it is there
      .then(() => offline && document.getElementById("my-tables")?.replaceWith(myTables()));
  }
  document.body.dataset.ready = "1";
}

start().catch((err) => {
  console.error(err);
  document.getElementById("app").textContent = t("error.start");
});

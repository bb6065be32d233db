// The round's moves: beside the table on wide screens (the whole round, scrollable, the
// newest marked and kept in view); on phones a one-line ticker above the hand with the
// newest moves, which opens the whole round in a sheet.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { describeEntry } from "./log.js";

const TICKER = 2; // moves the phone ticker shows, newest first

function entries(table, log) {
  const name = (s) => table.name(s);
  return log.map((e, i) =>
    h("li", { class: i === log.length - 1 ? "newest" : null, "aria-current": i === log.length - 1 ? "true" : null },
      describeEntry(e, name)));
}

/** The side panel: the whole round's log. */
export function renderSide(table, view) {
  return h("aside", { class: "side", "aria-labelledby": "log-title" },
    h("h2", { id: "log-title" }, t("log.title")),
    // (tabindex: a region that scrolls is reached by the keyboard too)
    h("ol", { class: "log", id: "log", tabindex: "0", "aria-labelledby": "log-title" },
      view.log.length ? entries(table, view.log) : h("li", { class: "help" }, t("log.empty"))));
}

/** Scroll the side panel's log to its newest entry (after a render). */
export function showNewest(section) {
  const log = section.querySelector("#log");
  if (log) log.scrollTop = log.scrollHeight;
}

/** The phone's ticker: the newest moves on one line; a tap opens the whole round. */
export function renderTicker(table, view) {
  const newest = view.log.slice(-TICKER).reverse();
  const name = (s) => table.name(s);
  return h("button", {
    type: "button", class: "ticker", id: "ticker", dataset: { focus: "ticker" },
    "aria-label": t("ticker.open"), onclick: () => openLogSheet(table),
  },
  h("span", { class: "ticker-moves", "aria-hidden": "true" },
    newest.length
      ? newest.map((e, i) => h("span", { class: i === 0 ? "tick newest" : "tick" }, describeEntry(e, name)))
      : h("span", { class: "tick" }, t("log.empty"))),
  h("span", { class: "ticker-more", "aria-hidden": "true" }, "☰"));
}

/** The whole round's log in a sheet (phones). */
export function openLogSheet(table) {
  document.getElementById("log-dialog")?.remove();
  const view = table.state.view;
  const dialog = h("dialog", { id: "log-dialog", class: "sheet log-sheet", "aria-labelledby": "log-sheet-title" },
    h("div", { class: "sheet-body" },
      h("h2", { id: "log-sheet-title", tabindex: "-1" }, t("log.title")),
      h("button", { type: "button", class: "ghost close", "aria-label": t("dialog.close"), onclick: () => dialog.close() }, "×"),
      h("ol", { class: "log", id: "log-full" },
        view.log.length ? entries(table, view.log) : h("li", { class: "help" }, t("log.empty")))));
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  dialog.querySelector("h2").focus({ preventScroll: true });
  const list = dialog.querySelector("#log-full");
  list.scrollTop = list.scrollHeight;
}

// The turn timer on the table (a table with `turn_seconds`): a bar on the seat to move
// that runs down, the seconds in its last LOW seconds; the player's own clock, by the
// hand, is a larger ring with the seconds in it, and pulses at the end (not with
// prefers-reduced-motion). Every client shows it, spectators too.
//
// The time left is counted by the server's clock: `turn_deadline - server_time` when
// the state arrived, less the time since (a monotonic clock), so that a client whose
// clock is off, or that reconnects mid-turn, shows it right.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** From this many seconds left, the seconds are shown and the player's own clock pulses. */
export const LOW = 10;
const RING_R = 20; // the ring's radius in its 48 × 48 view box
const RING_C = 2 * Math.PI * RING_R;
const EVERY_MS = 250;

/** Note when a `state` message arrived: its clocks are counted from then. */
export function noteArrival(msg) {
  msg.arrivedAt = performance.now();
}

/** Seconds from now until `at` (unix time on the server's clock, a field of `state`),
 * or null when `at` is. */
export function secondsUntil(state, at, now = performance.now()) {
  if (at === null || at === undefined) return null;
  if (typeof state.server_time !== "number" || typeof state.arrivedAt !== "number") {
    return Math.max(0, at - Date.now() / 1000); // an older server: the own clock
  }
  return Math.max(0, at - state.server_time - (now - state.arrivedAt) / 1000);
}

/** Seconds left on the turn timer of `state`, or null when no timer runs. */
export function timeLeft(state, now = performance.now()) {
  return state ? secondsUntil(state, state.turn_deadline, now) : null;
}

/** The bar on an opponent's box while that seat is to move with a timer running. */
export function seatClock() {
  return h("span", { class: "turn-clock seat-clock", "aria-hidden": "true", dataset: { clock: "" } },
    h("span", { class: "clock-bar" }, h("span", { class: "clock-fill" })),
    h("span", { class: "clock-secs" }));
}

/** The player's own clock: a ring with the seconds in it, and a bar over the hand. */
export function myClock() {
  return h("span", { class: "turn-clock my-clock", id: "my-clock", "aria-hidden": "true", dataset: { clock: "" } },
    h("span", {
      class: "clock-ring",
      html: `<svg viewBox="0 0 48 48"><circle class="ring-track" cx="24" cy="24" r="${RING_R}"/>`
        + `<circle class="ring-run" cx="24" cy="24" r="${RING_R}" transform="rotate(-90 24 24)"/></svg>`,
    }),
    h("span", { class: "clock-secs" }));
}

export function myClockBar() {
  return h("span", { class: "turn-clock my-clock-bar", "aria-hidden": "true", dataset: { clock: "" } },
    h("span", { class: "clock-bar" }, h("span", { class: "clock-fill" })));
}

/** Set `el`'s text only when it changes. */
function say(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/** Keeps the table's clocks running: every clock element in it, and the status line's
 * words ("12 s left"). `start` is called after each render of the table. */
export class TurnClock {
  constructor(table) {
    this.table = table;
    this.interval = null;
  }

  stop() {
    clearInterval(this.interval);
    this.interval = null;
  }

  start() {
    this.stop();
    const state = this.table.state;
    if (timeLeft(state) === null) return;
    this.update(state, true);
    this.interval = setInterval(() => this.update(state), EVERY_MS);
  }

  /** Set every clock to the time left; `fresh`: the clocks were just drawn, and take
   * their place at once (no transition from a full clock to the time left). */
  update(state, fresh = false) {
    const root = this.table.el;
    if (!root?.isConnected || this.table.state !== state) {
      this.stop();
      return;
    }
    const left = timeLeft(state);
    const total = this.table.page.info?.settings?.turn_seconds || left;
    const fraction = total > 0 ? Math.min(1, left / total) : 0;
    const seconds = Math.ceil(left);
    const low = seconds <= LOW;
    const clocks = [...root.querySelectorAll("[data-clock]")];
    for (const el of clocks) {
      if (fresh) el.classList.add("still");
      el.dataset.left = left.toFixed(2);
      el.dataset.fraction = fraction.toFixed(4);
      el.classList.toggle("low", low);
      el.style.setProperty("--clock", fraction.toFixed(4));
      el.querySelector(".ring-run")?.style.setProperty("stroke-dashoffset", `${(RING_C * (1 - fraction)).toFixed(2)}`);
      const secs = el.querySelector(".clock-secs");
      // the player's own clock always says its seconds; a seat's only at the end
      if (secs) say(secs, low || el.id === "my-clock" ? String(seconds) : "");
    }
    if (fresh && clocks.length) {
      void root.offsetWidth; // their styles computed without transitions...
      for (const el of clocks) el.classList.remove("still"); // ...which run from here on
    }
    root.querySelector(".mine")?.classList.toggle("clock-low", low && !!root.querySelector("#my-clock"));
    const words = root.querySelector("#turn-timer");
    if (words) {
      say(words, t("table.timer", { n: seconds })); // (a live region: changed once a second)
      words.classList.toggle("low", low);
    }
  }
}

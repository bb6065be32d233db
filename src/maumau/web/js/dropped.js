// Another player's connection dropped: said on the table at once, with the countdown to
// the computer taking the seat over ("Ben's connection dropped — a computer takes over
// in 25 s"). The server's `presence` lists the seats nobody is connected to (`away`),
// each with `stand_in_at`, counted down by the server's clock as the turn timer is
// (turnclock.js). When the computer has taken over, the seat's own "computer playing"
// mark says it; when the player is back, the notice goes.

import { h } from "./dom.js";
import { nameEl, tx } from "./names.js";
import { secondsUntil } from "./turnclock.js";

const EVERY_MS = 500;
let timer = null;

/** The notice of the other players whose connection dropped, or null. */
export function renderDropped(table) {
  const page = table.page;
  const away = page.away;
  const seats = page.info?.seats || [];
  const shown = (away?.list || []).filter((a) => a.seat !== page.seat && seats[a.seat]
    && seats[a.seat].kind === "human" && !seats[a.seat].stand_in && !seats[a.seat].connected);
  clearInterval(timer);
  if (!shown.length || table.state?.view.finished) return null;
  const lines = shown.map((a) => h("p", { class: "dropped-line", dataset: { seat: a.seat } }));
  // (inside the status line, a live region: the seconds ticking are not read out)
  const el = h("div", { class: "dropped", id: "dropped", "aria-live": "off" }, lines);
  const update = () => {
    shown.forEach((a, i) => {
      const name = nameEl(table.name(a.seat));
      const left = secondsUntil(away, a.stand_in_at);
      lines[i].replaceChildren(...(left === null
        ? tx("dropped.wait", { name })
        : tx("dropped.countdown", { name, s: Math.ceil(left) })));
    });
  };
  update();
  timer = setInterval(() => (el.isConnected ? update() : clearInterval(timer)), EVERY_MS);
  return el;
}

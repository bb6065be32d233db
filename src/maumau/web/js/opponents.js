// The other players around the table: name, cards held, points, who is connected, who
// moves, who just acted and what they did last, who led the round; the catch button.

import { h } from "./dom.js";
import { t, tn } from "./i18n.js";
import { cardChip } from "./log.js";
import { seatMenuButton } from "./mute.js";
import { avatar, nameEl, tx } from "./names.js";
import { seatClock } from "./turnclock.js";

/** The seats after `me` in seat order (all seats for a spectator). */
export function seatsAround(me, n) {
  const order = [];
  for (let i = 1; i <= n; i++) {
    const seat = ((me ?? -1) + i + n) % n;
    if (seat !== me) order.push(seat);
  }
  return order;
}

/** The seat whose entry is the last of the log (the one that just acted), or null. */
export function lastActor(log) {
  for (let i = log.length - 1; i >= 0; i--) {
    const e = log[i];
    if ("seat" in e) return e.seat;
    if ("out" in e) return e.out;
  }
  return null;
}

/** What `seat` did last this round, in a few characters (a chip, "+2", "—"). */
function lastMove(log, seat) {
  for (let i = log.length - 1; i >= 0; i--) {
    const e = log[i];
    if (e.seat !== seat) continue;
    if ("play" in e) return { kind: "played", node: cardChip(e.play), label: t("opp.last_played") };
    if ("draw" in e) return { kind: "drew", node: `+${e.draw}`, label: tn("opp.last_drew", e.draw) };
    if ("penalty" in e) return { kind: "penalty", node: `+${e.penalty}`, label: tn("opp.last_penalty", e.penalty) };
    if ("pass" in e) return { kind: "passed", node: "—", label: t("opp.last_passed") };
    return null;
  }
  return null;
}

function presence(info) {
  if (info.kind === "bot") return { cls: "bot", text: t("seat.bot", { level: t(`level.${info.level}`) }) };
  if (info.stand_in) return { cls: "stand-in", text: t("seat.stand_in") };
  return info.connected
    ? { cls: "online", text: t("seat.online") }
    : { cls: "offline", text: t("seat.offline") };
}

export function renderOpponents(table, view) {
  const me = table.page.seat;
  const seats = table.page.info.seats;
  const catches = new Set(table.legal().filter((a) => "catch" in a).map((a) => a.catch));
  const acted = lastActor(view.log);
  const prev = table.prev?.round === view.round ? table.prev : null;
  const over = view.step === "over";
  return h("ul", { class: "opponents", "aria-label": t("table.opponents") },
    seatsAround(me, view.players.length).map((seat) => {
      const info = seats[seat] || {};
      const count = view.counts[seat];
      const before = prev ? prev.counts[seat] : count;
      const state = presence(info);
      const last = lastMove(view.log, seat);
      const classes = ["opponent"];
      if (view.to_move === seat && !over) classes.push("turn");
      const timed = view.to_move === seat && !over && table.state.turn_deadline != null;
      if (timed) classes.push("timed");
      if (acted === seat) classes.push("acted");
      if (count > before) classes.push("grew");
      return h("li", { class: classes.join(" "), dataset: { seat } },
        h("div", { class: "opp-head" },
          h("span", { class: `avatar-wrap ${state.cls}` }, avatar(view.players[seat]),
            h("span", { class: "presence", title: state.text })),
          h("span", { class: "opp-name" }, nameEl(view.players[seat])),
          seat === view.leader ? h("span", { class: "leader", title: t("table.round_led") }, "★") : null),
        h("div", { class: "opp-cards" },
          h("span", { class: `presence-dot ${state.cls}`, title: state.text }),
          h("span", { class: "count" },
            h("span", { class: "sr-only" }, tn("table.cards", count)),
            h("span", { class: "mini-back", "aria-hidden": "true" }),
            h("span", { class: "count-n", "aria-hidden": "true" }, String(count)),
            h("span", { class: "count-word", "aria-hidden": "true" }, tn("table.cards_word", count))),
          h("span", { class: "pts" }, t("table.total", { n: view.totals[seat] })),
          last ? h("span", { class: `last ${last.kind}`, title: last.label }, h("span", { class: "sr-only" }, last.label), last.node) : null,
          info.kind === "human" ? seatMenuButton(table.page.chat, seat, view.players[seat]) : null), // mute.js
        h("div", { class: "opp-badges" },
          h("span", { class: `badge ${state.cls}` },
            h("span", { class: "badge-long" }, state.text),
            h("span", { class: "badge-short", "aria-hidden": "true" }, t(`seat.short.${state.cls}`))),
          view.rounds_won[seat] ? h("span", { class: "badge won" }, tn("table.won", view.rounds_won[seat])) : null),
        catches.has(seat)
          ? h("button", {
            type: "button", class: "catch", dataset: { focus: `catch-${seat}` },
            onclick: () => table.send({ catch: seat }),
          }, tx("table.catch", { name: nameEl(view.players[seat]) }))
          : null,
        timed ? seatClock() : null,
      );
    }));
}

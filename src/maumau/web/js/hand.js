// The player's own corner: name and points, the Mau / Draw / Pass buttons and the hand.
//
// The hand is laid out in rows so that every card keeps a tap target of at least
// MIN_TAP × MIN_TAP pixels however many cards are held: a card is covered only by its
// right neighbour and by the card below it, and each leaves at least that much of it
// uncovered (a lifted playable card included).

import { cardFaceSvg, cardName, sortHand } from "./cards.js";
import { h } from "./dom.js";
import { t, tn } from "./i18n.js";
import { callOffered, dueWord } from "./mau.js";
import { nameEl } from "./names.js";
import { myClock, myClockBar } from "./turnclock.js";

export const MIN_TAP = 44;
const LIFT = 8; // how far a playable card is lifted
const HINT_KEY = "maumau.hint.firstTurn";

/** Whether the first-turn hint was shown and acted on already (in this browser). */
export function hintSeen() {
  return localStorage.getItem(HINT_KEY) === "1";
}

export function markHintSeen() {
  localStorage.setItem(HINT_KEY, "1");
}

export function renderMine(table, view) {
  const me = table.page.seat;
  const legal = table.legal();
  const playable = table.playable();
  const hand = sortHand(view.hand);
  const before = new Set(table.prev?.round === view.round ? table.prev.hand : []);
  const fresh = table.prev?.round === view.round;
  if (table.focusIndex >= hand.length) table.focusIndex = Math.max(0, hand.length - 1);
  const rules = table.page.info.rules;
  const draw = legal.find((a) => "draw" in a);
  const pass = legal.find((a) => a.pass);
  const offered = callOffered(table.state, me, rules);
  const armed = offered && table.mau.armedFor(table.state);
  const word = t(`mau.${dueWord(view.hand.length)}`);
  const actions = h("div", { class: "actions" },
    rules.mau_penalty !== "off"
      ? h("button", {
        type: "button", id: "mau", class: `mau ${armed ? "armed" : ""}`,
        // not offered: it stays focusable and a press says when a call is made
        "aria-pressed": String(armed), "aria-disabled": String(!offered), dataset: { focus: "mau" },
        title: offered ? t("mau.help") : t("mau.not_due"), onclick: () => table.toggleMau(),
      }, h("span", { class: "mau-word" }, word),
      h("span", { class: "mau-state", "aria-hidden": "true" }, armed ? t("mau.on") : ""),
      h("kbd", {}, "M"))
      : null,
    h("button", {
      type: "button", id: "draw", disabled: !draw, dataset: { focus: "draw" }, onclick: () => table.draw(),
    }, draw && draw.draw > 1 ? t("table.draw_n", { n: draw.draw }) : t("table.draw"), h("kbd", {}, "D")),
    pass
      ? h("button", { type: "button", id: "pass", dataset: { focus: "pass" }, onclick: () => table.pass() },
        view.step === "drawn" ? t("table.keep") : view.step === "wait" ? t("table.accept") : t("table.pass"), h("kbd", {}, "P"))
      : null,
  );
  const cards = hand.map((code, i) => {
    const ok = playable.has(code);
    const classes = ["card", ok ? "playable" : "dim"];
    if (fresh && !before.has(code)) classes.push("arrive");
    if (view.drawn === code) classes.push("drawn");
    if (table.page.pending?.action.play === code) classes.push("pending"); // sent, not yet answered
    return h("button", {
      type: "button",
      class: classes.join(" "),
      dataset: { card: code },
      tabindex: i === table.focusIndex ? "0" : "-1",
      "aria-label": `${cardName(code)}, ${ok ? t("card.playable") : t("card.not_playable")}`,
      html: cardFaceSvg(code),
      onclick: () => table.play(code),
      onfocus: () => { table.focusIndex = i; },
    });
  });
  const seatInfo = table.page.info.seats[me] || {};
  // the turn timer runs for this player: the own clock, by the hand (turnclock.js)
  const timed = view.to_move === me && view.step !== "over" && table.state.turn_deadline != null;
  return h("div", { class: `mine ${timed ? "timed" : ""}` },
    timed ? myClockBar() : null,
    h("div", { class: "me-bar" },
      timed ? myClock() : null,
      h("span", { class: "me-name" }, nameEl(view.players[me]),
        seatInfo.stand_in ? h("span", { class: "badge stand-in" }, t("seat.stand_in")) : null,
        me === view.leader ? h("span", { class: "leader", title: t("table.round_led") }, "★") : null),
      h("span", {}, t("table.total", { n: view.totals[me] })),
      h("span", { class: "won" }, tn("table.won", view.rounds_won[me])),
      actions),
    h("div", { class: "hand", id: "hand", role: "group", "aria-label": t("table.hand", { n: hand.length }) }, cards),
    h("p", { class: "keys help" }, t("table.keys")),
  );
}

/** Place the hand's cards in rows that keep every tap target at least MIN_TAP wide and
 * tall; sets the hand's height. */
export function layoutHand(hand) {
  const cards = [...hand.querySelectorAll(".card")];
  if (!cards.length) {
    hand.style.height = "";
    return;
  }
  const width = hand.clientWidth;
  const cw = cards[0].offsetWidth || 62;
  const ch = cards[0].offsetHeight || cw * 1.4;
  const roomy = cw + 6;
  const perRowMax = Math.max(1, Math.floor((width - cw) / MIN_TAP) + 1);
  const rows = Math.ceil(cards.length / perRowMax);
  const perRow = Math.ceil(cards.length / rows);
  const step = perRow > 1 ? Math.min(roomy, (width - cw) / (perRow - 1)) : 0;
  const rowStep = MIN_TAP + LIFT + 2;
  hand.classList.toggle("rows", rows > 1);
  hand.dataset.rows = String(rows);
  hand.style.height = `${ch + (rows - 1) * rowStep + LIFT + 4}px`;
  // Positions relative to the hand's width, kept inside it: until the hand is laid out
  // again after a resize (the next frame), no card reaches past its edges.
  cards.forEach((card, i) => {
    const row = Math.floor(i / perRow);
    const col = i - row * perRow;
    const inRow = Math.min(perRow, cards.length - row * perRow);
    const offset = col * step - (cw + (inRow - 1) * step) / 2;
    card.style.left = `clamp(0px, calc(50% + ${offset.toFixed(1)}px), calc(100% - var(--card-w)))`;
    card.style.top = `${LIFT + 2 + row * rowStep}px`;
  });
}

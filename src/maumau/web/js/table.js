// The table during a round: opponents, piles, direction, your hand and your moves.

import { cardBackSvg, cardFaceSvg, cardName, sortHand, suitSvg, SUITS } from "./cards.js";
import { h } from "./dom.js";
import { t, tn } from "./i18n.js";
import { describeEntry } from "./log.js";
import { avatar, nameEl, tx } from "./names.js";

const SHORTCUTS = { d: "draw", m: "mau", p: "pass", k: "pass" };

export class TableView {
  constructor(page) {
    this.page = page;
    this.el = null;
    this.armed = false; // the Mau button is pressed for the next play
    this.armedRound = null;
    this.prev = null; // the previous view, to animate what changed
    this.focusIndex = 0;
    this.timer = null;
    this.pendingJack = null;
    addEventListener("keydown", (e) => this.onKey(e));
    addEventListener("resize", () => this.fitHand());
  }

  detach() {
    this.el = null;
  }

  get state() {
    return this.page.state;
  }

  legal() {
    return this.state?.legal || [];
  }

  playable() {
    return new Set(this.legal().filter((a) => a.play).map((a) => a.play));
  }

  name(seat) {
    return this.state.view.players[seat] ?? `#${seat}`;
  }

  // --- moves ------------------------------------------------------------------------

  call() {
    if (!this.armed) return undefined;
    return this.state.view.hand.length <= 1 ? "maumau" : "mau";
  }

  play(code) {
    if (!this.playable().has(code)) return;
    if (code[0] === "J") {
      this.chooseSuit(code);
      return;
    }
    this.send({ play: code, call: this.call() });
  }

  send(action) {
    if (action.call === undefined) delete action.call;
    if (this.page.act(action) && action.play) this.armed = false;
  }

  draw() {
    const draw = this.legal().find((a) => "draw" in a);
    if (draw) this.send({ draw: draw.draw });
  }

  pass() {
    if (this.legal().some((a) => a.pass)) this.send({ pass: true });
  }

  toggleMau() {
    if (this.page.seat === null) return;
    this.armed = !this.armed;
    this.armedRound = this.state?.view.round;
    this.render(this.page.root);
  }

  chooseSuit(code) {
    const dialog = this.suitDialog();
    this.pendingJack = code;
    dialog.showModal();
    dialog.querySelector("button")?.focus();
  }

  suitDialog() {
    let dialog = document.getElementById("suit-dialog");
    if (dialog) dialog.remove();
    dialog = h("dialog", { id: "suit-dialog", class: "sheet suit-dialog", "aria-labelledby": "suit-title" },
      h("h2", { id: "suit-title" }, t("jack.choose")),
      h("div", { class: "suit-choices" },
        SUITS.map((s) =>
          h("button", {
            type: "button", class: `suit-choice suit-${s}`, dataset: { suit: s },
            onclick: () => {
              dialog.close();
              this.send({ play: this.pendingJack, suit: s, call: this.call() });
            },
          }, h("span", { html: suitSvg(s) }), t(`suit.name.${s}`)))),
      h("button", { type: "button", class: "ghost", onclick: () => dialog.close() }, t("dialog.cancel")));
    document.body.append(dialog);
    return dialog;
  }

  onKey(e) {
    if (!this.el || !this.state || e.ctrlKey || e.metaKey || e.altKey) return;
    if (document.querySelector("dialog[open]")) return;
    const target = e.target;
    if (target.matches?.("input, select, textarea")) return;
    const inHand = target.closest?.(".hand");
    if (inHand && ["ArrowLeft", "ArrowRight", "Home", "End"].includes(e.key)) {
      const cards = [...this.el.querySelectorAll(".hand .card")];
      let i = cards.indexOf(target.closest(".card"));
      if (e.key === "ArrowLeft") i = Math.max(0, i - 1);
      if (e.key === "ArrowRight") i = Math.min(cards.length - 1, i + 1);
      if (e.key === "Home") i = 0;
      if (e.key === "End") i = cards.length - 1;
      this.focusIndex = i;
      cards.forEach((c, j) => { c.tabIndex = j === i ? 0 : -1; });
      cards[i]?.focus();
      e.preventDefault();
      return;
    }
    const action = SHORTCUTS[e.key.toLowerCase()];
    if (!action) return;
    e.preventDefault();
    if (action === "draw") this.draw();
    if (action === "mau") this.toggleMau();
    if (action === "pass") this.pass();
  }

  /** Focus `code` in the hand if it is still there, else the first playable card. */
  focusHand(code = null) {
    const hand = this.el?.querySelector(".hand");
    if (!hand) return;
    const card =
      (code && hand.querySelector(`.card[data-card="${code}"]`)) ||
      hand.querySelector(".card.playable") ||
      hand.querySelector(".card");
    if (!card) return;
    hand.querySelectorAll(".card").forEach((c) => { c.tabIndex = c === card ? 0 : -1; });
    card.focus();
  }

  // --- drawing the table ------------------------------------------------------------

  render(root) {
    const state = this.state;
    const view = state.view;
    const me = this.page.seat;
    if (this.armedRound !== view.round) this.armed = false;
    const active = document.activeElement;
    const focusKey = active?.dataset?.focus;
    const handFocused = !!active?.closest?.(".hand");
    const focusedCard = handFocused ? active.dataset.card : null;

    const section = h("section", {
      class: `table ${view.to_move === me && view.step !== "over" ? "my-turn" : ""}`,
      id: "table",
      dataset: { round: view.round, step: view.step, version: state.version },
    },
      this.opponents(view),
      this.centre(view),
      this.statusLine(view),
      me === null ? null : this.mine(view),
      this.side(view),
    );
    root.replaceChildren(section);
    this.el = section;
    this.fitHand();
    if (focusKey) section.querySelector(`[data-focus="${CSS.escape(focusKey)}"]`)?.focus();
    else if (handFocused) this.focusHand(focusedCard);
    this.announce(view);
    this.tick();
    this.prev = view;
  }

  opponents(view) {
    const me = this.page.seat;
    const n = view.players.length;
    const order = [];
    for (let i = 1; i <= n; i++) {
      const seat = ((me ?? -1) + i + n) % n;
      if (seat !== me) order.push(seat);
    }
    const seats = this.page.info.seats;
    const catches = new Set(this.legal().filter((a) => "catch" in a).map((a) => a.catch));
    return h("div", { class: "opponents", "aria-label": t("table.opponents") },
      order.map((seat) => {
        const info = seats[seat] || {};
        const count = view.counts[seat];
        const before = this.prev?.round === view.round ? this.prev.counts[seat] : count;
        const fan = h("div", { class: "fan", "aria-hidden": "true" },
          Array.from({ length: Math.min(count, 7) }, () => h("span", { class: "mini-back" })));
        return h("div", {
          class: `opponent ${view.to_move === seat && view.step !== "over" ? "turn" : ""} ${count > before ? "grew" : ""}`,
          dataset: { seat },
        },
          h("div", { class: "opp-head" },
            avatar(view.players[seat]),
            h("span", { class: "opp-name" }, nameEl(view.players[seat])),
          ),
          h("div", { class: "opp-cards" }, fan, h("span", { class: "count" }, tn("table.cards", count))),
          h("div", { class: "opp-meta" },
            h("span", {}, t("table.total", { n: view.totals[seat] })),
            view.rounds_won[seat] ? h("span", {}, tn("table.won", view.rounds_won[seat])) : null,
          ),
          h("div", { class: "opp-badges" }, this.badges(info)),
          catches.has(seat)
            ? h("button", {
              type: "button", class: "catch", dataset: { focus: `catch-${seat}` },
              onclick: () => this.send({ catch: seat }),
            }, tx("table.catch", { name: nameEl(view.players[seat]) }))
            : null,
        );
      }));
  }

  badges(info) {
    if (info.kind === "bot") return h("span", { class: "badge bot" }, t("seat.bot", { level: t(`level.${info.level}`) }));
    const out = [];
    if (info.stand_in) out.push(h("span", { class: "badge stand-in" }, t("seat.stand_in")));
    out.push(info.connected
      ? h("span", { class: "badge online" }, t("seat.online"))
      : h("span", { class: "badge offline" }, t("seat.offline")));
    return out;
  }

  centre(view) {
    const canDraw = this.legal().some((a) => "draw" in a);
    const last = view.log[view.log.length - 1];
    const changed = this.prev && (this.prev.top !== view.top || this.prev.round !== view.round);
    const from = last && "play" in last ? (last.seat === this.page.seat ? "from-me" : "from-opp") : "";
    const named = view.named_suit
      ? h("div", { class: `named suit-${view.named_suit}`, id: "named-suit" },
        h("span", { html: suitSvg(view.named_suit) }), t("table.named", { suit: t(`suit.name.${view.named_suit}`) }))
      : null;
    const dir = view.direction === 1 ? "cw" : "ccw";
    return h("div", { class: "felt" },
      h("div", { class: `direction ${dir}`, title: t(`table.direction.${dir}`) },
        h("span", { html: `<svg viewBox="0 0 100 100" aria-hidden="true"><path d="M50 12a38 38 0 1 1-36 26" fill="none" stroke="currentColor" stroke-width="6" stroke-linecap="round"/><path d="M4 30l10 10 12-10" fill="none" stroke="currentColor" stroke-width="6" stroke-linecap="round" stroke-linejoin="round"/></svg>` }),
        h("span", { class: "sr-only" }, t(`table.direction.${dir}`))),
      h("div", { class: "pile draw-pile" },
        h("button", {
          type: "button", class: `card back-card ${canDraw ? "playable" : ""}`, id: "draw-pile",
          disabled: !canDraw, dataset: { focus: "draw-pile" },
          "aria-label": `${t("table.draw_pile")}: ${tn("table.cards", view.stock_count)}`,
          html: cardBackSvg(),
          onclick: () => this.draw(),
        }),
        h("span", { class: "pile-label" }, tn("table.cards", view.stock_count))),
      h("div", { class: "pile discard-pile" },
        h("div", {
          class: `card top ${changed ? `arrive ${from}` : ""}`, id: "top-card", dataset: { card: view.top },
          role: "img", "aria-label": `${t("table.top_card")}: ${cardName(view.top)}`,
          html: cardFaceSvg(view.top),
        }),
        view.pending ? h("span", { class: "pending", id: "pending" }, `+${view.pending}`) : null,
        named),
    );
  }

  statusLine(view) {
    const me = this.page.seat;
    const legal = this.legal();
    let text;
    if (view.step === "over") text = t("turn.round_over");
    else if (this.page.info?.paused) text = t("turn.paused"); // nobody plays: the server waits
    else if (view.to_move === me && view.step === "drawn") text = t("turn.drawn");
    else if (view.step === "wait" && legal.some((a) => a.pass)) text = tx("turn.accept", { name: nameEl(view.players[view.catchable] ?? "") });
    else if (view.to_move === me) text = view.pending ? t("turn.you_pending", { n: view.pending }) : t("turn.you");
    else text = tx("turn.other", { name: nameEl(view.players[view.to_move]) });
    return h("div", { class: "status-line", id: "turn", role: "status" },
      h("span", { class: "turn-text" }, text),
      h("span", { class: "timer", id: "turn-timer" }),
      h("span", { class: "round-no" }, t("table.round", { n: view.round + 1 })),
      this.page.history.rounds.length && !view.finished
        ? h("button", {
          type: "button", class: "ghost small", id: "scores-btn", dataset: { focus: "scores" },
          onclick: () => this.page.openScores(),
        }, t("table.scores"))
        : null);
  }

  mine(view) {
    const me = this.page.seat;
    const legal = this.legal();
    const playable = this.playable();
    const hand = sortHand(view.hand);
    const before = new Set(this.prev?.round === view.round ? this.prev.hand : []);
    const fresh = this.prev?.round === view.round;
    if (this.focusIndex >= hand.length) this.focusIndex = Math.max(0, hand.length - 1);
    const rules = this.page.info.rules;
    const draw = legal.find((a) => "draw" in a);
    const pass = legal.find((a) => a.pass);
    const mauWord = view.hand.length <= 1 ? t("mau.maumau") : t("mau.mau");
    const actions = h("div", { class: "actions" },
      rules.mau_penalty !== "off"
        ? h("button", {
          type: "button", id: "mau", class: `mau ${this.armed ? "armed" : ""}`, "aria-pressed": String(this.armed),
          dataset: { focus: "mau" }, title: t("mau.help"), onclick: () => this.toggleMau(),
        }, mauWord, h("kbd", {}, "M"))
        : null,
      h("button", {
        type: "button", id: "draw", disabled: !draw, dataset: { focus: "draw" }, onclick: () => this.draw(),
      }, draw && draw.draw > 1 ? t("table.draw_n", { n: draw.draw }) : t("table.draw"), h("kbd", {}, "D")),
      pass
        ? h("button", { type: "button", id: "pass", dataset: { focus: "pass" }, onclick: () => this.pass() },
          view.step === "drawn" ? t("table.keep") : view.step === "wait" ? t("table.accept") : t("table.pass"), h("kbd", {}, "P"))
        : null,
    );
    const cards = hand.map((code, i) => {
      const ok = playable.has(code);
      return h("button", {
        type: "button",
        class: `card ${ok ? "playable" : "dim"} ${fresh && !before.has(code) ? "arrive" : ""} ${view.drawn === code ? "drawn" : ""}`,
        dataset: { card: code },
        tabindex: i === this.focusIndex ? "0" : "-1",
        "aria-label": `${cardName(code)}, ${ok ? t("card.playable") : t("card.not_playable")}`,
        "aria-disabled": ok ? "false" : "true",
        html: cardFaceSvg(code),
        onclick: () => this.play(code),
        onfocus: () => { this.focusIndex = i; },
      });
    });
    const seatInfo = this.page.info.seats[me] || {};
    return h("div", { class: "mine" },
      h("div", { class: "me-bar" },
        h("span", { class: "me-name" }, nameEl(view.players[me]), seatInfo.stand_in ? h("span", { class: "badge stand-in" }, t("seat.stand_in")) : null),
        h("span", {}, t("table.total", { n: view.totals[me] })),
        h("span", {}, tn("table.won", view.rounds_won[me])),
        this.armed ? h("span", { class: "armed-note" }, t("mau.armed", { word: mauWord })) : null,
      ),
      actions,
      h("div", { class: "hand", role: "group", "aria-label": t("table.hand", { n: hand.length }) }, cards),
      h("p", { class: "keys help" }, t("table.keys")),
    );
  }

  side(view) {
    const entries = view.log.slice(-8);
    const commitment = this.state.commitment;
    return h("aside", { class: "side" },
      h("h2", {}, t("log.title")),
      h("ol", { class: "log", id: "log" },
        entries.length ? entries.map((e) => h("li", {}, describeEntry(e, (s) => this.name(s)))) : h("li", { class: "help" }, t("log.empty"))),
      commitment
        ? h("p", { class: "commitment", title: commitment },
          t("shuffle.commitment"), " ", h("code", {}, `${commitment.slice(0, 10)}…`))
        : null,
    );
  }

  fitHand() {
    const hand = this.el?.querySelector(".hand");
    if (!hand) return;
    const cards = hand.querySelectorAll(".card");
    if (cards.length < 2) return;
    const width = (hand.parentElement?.clientWidth || hand.clientWidth) - 32;
    const cardWidth = cards[0].offsetWidth || 80;
    const step = Math.min(cardWidth + 6, (width - cardWidth - 4) / (cards.length - 1));
    hand.style.setProperty("--overlap", `${Math.min(6, step - cardWidth)}px`);
  }

  announce(view) {
    const prev = this.prev;
    if (prev && prev.round === view.round && prev.log.length === view.log.length && prev.to_move === view.to_move) return;
    const last = view.log[view.log.length - 1];
    const parts = [];
    if (last) parts.push(describeEntry(last, (s) => this.name(s), true));
    const status = this.el.querySelector(".turn-text")?.textContent;
    if (status) parts.push(status);
    document.getElementById("live").textContent = parts.join(". ");
  }

  tick() {
    clearInterval(this.timer);
    const deadline = this.state.turn_deadline;
    const el = this.el.querySelector("#turn-timer");
    if (!deadline || !el) return;
    const update = () => {
      const left = Math.max(0, Math.round(deadline - Date.now() / 1000));
      el.textContent = t("table.timer", { n: left });
      el.classList.toggle("low", left <= 10);
    };
    update();
    this.timer = setInterval(update, 1000);
  }
}

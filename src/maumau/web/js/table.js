// The table during a round: opponents, piles, direction, your hand and your moves.

import { suitOf, suitSvg, SUITS } from "./cards.js";
import { h } from "./dom.js";
import { t, tn } from "./i18n.js";
import { whyNot } from "./explain.js";
import { Cue, renderFelt } from "./felt.js";
import { hintSeen, layoutHand, markHintSeen, renderMine } from "./hand.js";
import { catchReason, describeEntry } from "./log.js";
import { callOffered, dueWord, MauArm } from "./mau.js";
import { renderSide, renderTicker, showNewest } from "./movelog.js";
import { renderOpponents } from "./opponents.js";
import { nameEl, shownName, tx } from "./names.js";
import { toast } from "./toast.js";
import { TurnClock } from "./turnclock.js";
import { watchCount } from "./askseat.js";
import { renderDropped } from "./dropped.js";

const SHORTCUTS = { d: "draw", m: "mau", p: "pass", k: "pass" };

export class TableView {
  constructor(page) {
    this.page = page;
    this.el = null;
    this.mau = new MauArm(page.gameId); // the Mau button, pressed for one play
    this.cue = new Cue(); // a skip or reversal, said on the felt for a moment
    this.prev = null; // the previous view, to animate what changed
    this.focusIndex = 0;
    this.clock = new TurnClock(this); // the turn timer's clocks, run down after each render
    this.pendingJack = null;
    addEventListener("keydown", (e) => this.onKey(e));
    // a phone turned, a window resized, the hand's box changed: its rows are laid out again
    this.handSize = new ResizeObserver(() => this.fitHand());
  }

  detach() {
    this.clock.stop();
    this.el = null;
    this.handSize.disconnect();
    this.watchedHand = null;
  }

  get state() {
    return this.page.state;
  }

  /** Whether a move may be sent now: the server is reachable, and no move of this
   * player awaits its answer (docs/protocol.md, "Lost signal"). */
  canAct() {
    return this.page.status === "online" && !this.page.pending;
  }

  /** The moves that may be made now: none while this page cannot act. */
  legal() {
    return this.canAct() ? this.state?.legal || [] : [];
  }

  playable() {
    return new Set(this.legal().filter((a) => a.play).map((a) => a.play));
  }

  name(seat) {
    return this.state.view.players[seat] ?? `#${seat}`;
  }

  // --- moves ------------------------------------------------------------------------

  call() {
    return this.mau.callFor(this.state);
  }

  play(code) {
    if (!this.canAct() && this.page.seat !== null) {
      toast(this.page.status !== "online" ? t("conn.lost") : t("move.pending"));
      return;
    }
    if (!this.playable().has(code)) {
      if (this.page.seat !== null) toast(whyNot(code, this.state, this.page.seat, this.page.info.rules));
      return;
    }
    if (code[0] === "J") {
      this.chooseSuit(code);
      return;
    }
    this.send({ play: code, call: this.call() });
  }

  send(action) {
    if (action.call === undefined) delete action.call;
    if (this.page.act(action)) {
      this.mau.clear(); // the arm was for this move, whatever it is
      markHintSeen();
    }
  }

  draw() {
    const draw = this.legal().find((a) => "draw" in a);
    if (draw) this.send({ draw: draw.draw });
  }

  pass() {
    if (this.legal().some((a) => a.pass)) this.send({ pass: true });
  }

  toggleMau() {
    const button = this.el?.querySelector("#mau");
    if (this.page.seat === null || !button) return;
    if (button.getAttribute("aria-disabled") === "true") {
      toast(t("mau.not_due"));
      return;
    }
    this.mau.toggle(this.state);
    this.render(this.page.root);
  }

  chooseSuit(code) {
    const dialog = this.suitDialog(code);
    this.pendingJack = code;
    dialog.showModal();
    dialog.scrollTop = 0;
    dialog.querySelector(".suit-choice")?.focus({ preventScroll: true });
  }

  suitDialog(jack) {
    document.getElementById("suit-dialog")?.remove();
    const rest = this.state.view.hand.filter((c) => c !== jack);
    const held = (s) => rest.filter((c) => suitOf(c) === s && c[0] !== "J").length;
    const dialog = h("dialog", { id: "suit-dialog", class: "sheet suit-dialog", "aria-labelledby": "suit-title" },
      h("h2", { id: "suit-title" }, t("jack.choose")),
      h("div", { class: "suit-choices" },
        SUITS.map((s) =>
          h("button", {
            type: "button", class: `suit-choice suit-${s}`, dataset: { suit: s },
            onclick: () => {
              dialog.close();
              this.send({ play: this.pendingJack, suit: s, call: this.call() });
            },
          }, h("span", { html: suitSvg(s) }), h("span", { class: "suit-name" }, t(`suit.name.${s}`)),
          h("span", { class: "suit-held" }, tn("jack.held", held(s)))))),
      h("button", { type: "button", class: "ghost", onclick: () => dialog.close() }, t("dialog.cancel")));
    dialog.addEventListener("close", () => dialog.remove());
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
    const active = document.activeElement;
    const focusKey = active?.dataset?.focus;
    const handFocused = !!active?.closest?.(".hand");
    const focusedCard = handFocused ? active.dataset.card : null;
    const cue = this.cue.update(view, me, (s) => this.name(s), () => {
      if (this.el?.isConnected) this.el.querySelector("#cue")?.remove();
      this.el?.querySelector(".felt")?.classList.remove("cue-skip", "cue-reverse");
    });
    const classes = ["table"];
    const reachable = this.page.status === "online";
    // (no "your turn" while the server cannot be reached: nothing could be played)
    if (view.to_move === me && view.step !== "over" && reachable) classes.push("my-turn");
    if (me === null) classes.push("watching");
    if (!reachable) classes.push("unreachable");
    if (this.page.pending) classes.push("move-pending");
    const section = h("section", {
      class: classes.join(" "),
      id: "table",
      "aria-labelledby": "table-title",
      dataset: { round: view.round, step: view.step, version: state.version, players: view.players.length },
    },
      h("h1", { class: "sr-only", id: "table-title" }, t("table.title", { n: view.round + 1 })),
      renderOpponents(this, view),
      renderFelt(this, view, cue),
      this.statusLine(view),
      renderTicker(this, view),
      me === null ? null : renderMine(this, view),
      renderSide(this, view),
    );
    root.replaceChildren(section);
    this.el = section;
    this.page.chat.attach(section); // the chat panel, its phone button, the bubbles
    this.fitHand();
    showNewest(section);
    if (focusKey) section.querySelector(`[data-focus="${CSS.escape(focusKey)}"]`)?.focus();
    else if (handFocused) this.focusHand(focusedCard);
    this.announce(view);
    this.tick();
    this.sayMissedCatch(view);
    this.prev = view;
  }

  /** The chance to catch a player passed without a catch from here: say so. */
  sayMissedCatch(view) {
    const prev = this.prev;
    const could = this.couldCatch;
    // (the moves the server offers, whether or not this page can reach it now)
    this.couldCatch = (this.state.legal || []).some((a) => "catch" in a) ? view.catchable : null;
    if (!prev || prev.round !== view.round || could === null || could === undefined) return;
    if (this.couldCatch === could) return;
    const fresh = view.log.slice(prev.log.length);
    if (fresh.some((e) => "catch" in e)) return;
    // letting a player go out (a pass while the round waits) is this player's choice
    if (prev.step === "wait" && fresh.some((e) => e.seat === this.page.seat && "pass" in e)) return;
    toast(t("catch.missed", { name: shownName(this.name(could)) }));
  }

  statusLine(view) {
    const me = this.page.seat;
    const legal = this.legal();
    let text;
    const catching = legal.some((a) => "catch" in a);
    const armed = this.mau.armedFor(this.state) && callOffered(this.state, me, this.page.info.rules);
    if (this.page.status !== "online") text = h("span", { id: "conn-lost" }, t("conn.lost"));
    else if (this.page.pending) text = h("span", { id: "move-pending" }, t("move.pending"));
    else if (view.step === "over") text = t("turn.round_over");
    else if (armed) text = h("span", { id: "mau-note" }, t("mau.armed", { word: t(`mau.${dueWord(view.hand.length)}`) }));
    else if (this.page.info?.paused) text = t("turn.paused"); // nobody plays: the server waits
    else if (view.to_move === me && view.step === "drawn") text = t("turn.drawn");
    else if (view.step === "wait" && legal.some((a) => a.pass)) text = tx("turn.accept", { name: nameEl(view.players[view.catchable] ?? "") });
    else if (catching) text = tx("turn.catch", { reason: catchReason(view, (s) => this.name(s)) });
    else if (view.to_move === me && view.pending) text = t("turn.you_pending", { n: view.pending });
    else if (view.to_move === me) text = hintSeen() ? t("turn.you") : t("hand.hint");
    else text = tx("turn.other", { name: nameEl(view.players[view.to_move]) });
    return h("div", { class: "status-line", id: "turn", role: "status" },
      renderDropped(this), // another player's connection dropped (on a line of its own)
      h("span", { class: `turn-text ${armed ? "armed" : ""}` }, text),
      h("span", { class: "timer", id: "turn-timer" }),
      watchCount(this.page.info),
      h("span", { class: "round-no" }, t("table.round", { n: view.round + 1 }),
        h("span", { class: "led" }, " · ", tx("table.led_by", { name: nameEl(view.players[view.leader] ?? "") }))),
      this.page.history.rounds.length && !view.finished
        ? h("button", {
          type: "button", class: "ghost small", id: "scores-btn", dataset: { focus: "scores" },
          onclick: () => this.page.openScores(),
        }, t("table.scores"))
        : null);
  }

  fitHand() {
    const hand = this.el?.querySelector(".hand");
    if (!hand) return;
    layoutHand(hand);
    if (this.watchedHand !== hand) {
      this.handSize.disconnect();
      this.handSize.observe(hand);
      this.watchedHand = hand;
    }
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

  /** The turn timer's clocks (turnclock.js): the seat to move's bar, the player's own
   * ring, the status line's seconds. */
  tick() {
    this.clock.start();
  }
}

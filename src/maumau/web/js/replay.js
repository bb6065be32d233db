// The replay of a finished game (/g/<id>#replay): every position of its record, every
// hand face up, stepped through move by move and round by round
// (GET /api/games/<id>/replay).

import { api } from "./api.js";
import { cardBackSvg, cardFaceSvg, cardName, sortHand, suitSvg } from "./cards.js";
import { entriesCues } from "./cues.js";
import { h } from "./dom.js";
import { language, t, tn } from "./i18n.js";
import { describeEntry } from "./log.js";
import { avatar, joinNodes, nameYou, tx } from "./names.js";
import { play } from "./sound.js";

const AUTOPLAY_MS = 1000;
const ICONS = {
  first: '<path d="M17 5l-7 7 7 7M7 5v14" fill="none" stroke="currentColor" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round"/>',
  prev: '<path d="M15 5l-7 7 7 7" fill="none" stroke="currentColor" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round"/>',
  next: '<path d="M9 5l7 7-7 7" fill="none" stroke="currentColor" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round"/>',
  last: '<path d="M7 5l7 7-7 7M17 5v14" fill="none" stroke="currentColor" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round"/>',
  play: '<path d="M8 5v14l11-7z" fill="currentColor"/>',
  pause: '<path d="M7 5h3.5v14H7zM13.5 5H17v14h-3.5z" fill="currentColor"/>',
  download: '<path d="M12 4v11M7 10l5 5 5-5M5 20h14" fill="none" stroke="currentColor" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round"/>',
};
const DIRECTION_SVG = '<svg viewBox="0 0 100 100" aria-hidden="true"><path d="M50 12a38 38 0 1 1-36 26" fill="none" stroke="currentColor" stroke-width="6" stroke-linecap="round"/><path d="M4 30l10 10 12-10" fill="none" stroke="currentColor" stroke-width="6" stroke-linecap="round" stroke-linejoin="round"/></svg>';

function icon(name) {
  return h("span", { class: "icon", html: `<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false">${ICONS[name]}</svg>` });
}

/** The cards of `after` that `before` lacks (a deck holds every card once). */
function added(after, before) {
  const had = new Set(before);
  return after.filter((c) => !had.has(c));
}

export class ReplayView {
  constructor(page) {
    this.page = page;
    this.data = null;
    this.error = null;
    this.loading = null;
    this.round = 0; // index into data.rounds
    this.step = 0; // index into that round's frames (0: the deal)
    this.el = null;
    this.builtFor = "";
    this.shown = null; // the position drawn last, to animate a step forward
    this.timer = null;
    addEventListener("keydown", (e) => this.onKey(e));
    addEventListener("hashchange", () => {
      if (!this.el?.isConnected) return;
      const before = `${this.round}/${this.step}`;
      this.fromHash();
      if (`${this.round}/${this.step}` !== before) this.go(this.round, this.step);
    });
  }

  get id() {
    return encodeURIComponent(this.page.gameId);
  }

  load() {
    if (!this.loading) {
      this.error = null;
      this.loading = api("GET", `/api/games/${this.id}/replay`)
        .then((data) => { this.data = data; })
        .catch((err) => {
          this.error = err;
          this.loading = null;
        });
    }
    return this.loading;
  }

  detach() {
    this.stop();
    this.el = null;
  }

  /** Draw the replay into `root` (loading the frames first if needed). */
  mount(root) {
    if (!this.data) {
      this.el = null;
      if (this.error) {
        root.replaceChildren(h("section", { class: "panel notice" },
          h("h1", {}, t("replay.kicker")),
          h("p", {}, t("replay.error")),
          h("div", { class: "buttons center" },
            h("button", { type: "button", class: "primary", onclick: () => { this.error = null; this.page.render(); } }, t("replay.retry")),
            h("button", { type: "button", onclick: () => this.page.closeReplay() }, t("replay.back")))));
        return;
      }
      root.replaceChildren(h("p", { class: "loading" }, t("replay.loading")));
      this.load().then(() => { if (this.page.replayOpen) this.page.render(); });
      return;
    }
    const key = `${language()}:${this.page.seat}`;
    const fresh = !this.el;
    if (fresh || this.builtFor !== key) {
      if (fresh) this.fromHash();
      this.build();
      this.builtFor = key;
    }
    if (root.firstElementChild !== this.el || root.childElementCount !== 1) root.replaceChildren(this.el);
    this.update();
    if (fresh) this.buttons.next.focus();
  }

  fromHash() {
    const match = location.hash.match(/^#replay\/(\d+)\/(\d+)$/);
    if (!match) return;
    const rounds = this.data.rounds;
    this.round = Math.min(rounds.length - 1, Math.max(0, Number(match[1]) - 1));
    this.step = Math.min(rounds[this.round].frames.length - 1, Number(match[2]));
  }

  name(seat) {
    const name = this.data.players[seat] ?? `#${seat}`;
    return seat === this.page.seat ? `${name} (${t("seat.you")})` : name;
  }

  /** The seat's name as nodes (isolated, see names.js), "(you)" after this player's. */
  who(seat) {
    return nameYou(this.data.players[seat] ?? `#${seat}`, seat === this.page.seat);
  }

  // --- moving through the record ---------------------------------------------------

  frames(round = this.round) {
    return this.data.rounds[round].frames;
  }

  go(round, step, { keep = false } = {}) {
    if (!keep) this.stop();
    const rounds = this.data.rounds;
    this.round = Math.min(rounds.length - 1, Math.max(0, round));
    this.step = Math.min(this.frames().length - 1, Math.max(0, step));
    this.update();
  }

  forward(keep = false) {
    if (this.step < this.frames().length - 1) {
      this.go(this.round, this.step + 1, { keep });
      entriesCues(this.frames()[this.step].events).forEach((cue) => play(cue)); // as it sounded live
    } else if (this.round < this.data.rounds.length - 1) this.go(this.round + 1, 0, { keep });
    else this.stop();
  }

  back() {
    if (this.step > 0) this.go(this.round, this.step - 1);
    else if (this.round > 0) this.go(this.round - 1, this.frames(this.round - 1).length - 1);
  }

  atEnd() {
    return this.round === this.data.rounds.length - 1 && this.step === this.frames().length - 1;
  }

  toggle() {
    if (this.timer) {
      this.stop();
      return;
    }
    if (this.atEnd()) this.go(0, 0);
    this.timer = setInterval(() => {
      if (!this.el?.isConnected) this.stop();
      else this.forward(true);
    }, AUTOPLAY_MS);
    this.update();
  }

  stop() {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    if (this.el) this.update();
  }

  onKey(e) {
    if (!this.el?.isConnected || !this.data || e.ctrlKey || e.metaKey || e.altKey) return;
    if (document.querySelector("dialog[open]")) return;
    if (e.target.matches?.("input, select, textarea")) return;
    const last = this.frames().length - 1;
    const moves = {
      ArrowRight: () => this.forward(),
      ArrowLeft: () => this.back(),
      Home: () => this.go(this.round, 0),
      End: () => this.go(this.round, last),
      PageDown: () => this.round < this.data.rounds.length - 1 && this.go(this.round + 1, 0),
      PageUp: () => this.go(Math.max(0, this.round - 1), 0),
    };
    const act = moves[e.key];
    if (!act) return;
    e.preventDefault();
    act();
  }

  // --- drawing -----------------------------------------------------------------------

  build() {
    const data = this.data;
    const control = (name, label, onclick) =>
      h("button", { type: "button", class: "control", id: `replay-${name}`, "aria-label": label, title: label, onclick }, icon(name));
    this.buttons = {
      first: control("first", t("replay.first"), () => this.go(this.round, 0)),
      prev: control("prev", t("replay.prev"), () => this.back()),
      play: control("play", t("replay.play"), () => this.toggle()),
      next: control("next", t("replay.next"), () => this.forward()),
      last: control("last", t("replay.last"), () => this.go(this.round, this.frames().length - 1)),
    };
    this.roundPick = h("select", { id: "replay-round", onchange: () => this.go(Number(this.roundPick.value), 0) },
      data.rounds.map((r, i) => h("option", { value: String(i) }, t("table.round", { n: r.round + 1 }))));
    this.slider = h("input", {
      type: "range", id: "replay-step", min: "0", step: "1", "aria-label": t("replay.slider"),
      oninput: () => this.go(this.round, Number(this.slider.value)),
    });
    this.position = h("p", { class: "kicker", id: "replay-position" });
    this.action = h("div", { class: "replay-action", id: "replay-action" });
    this.turn = h("p", { class: "replay-turn", id: "replay-turn" });
    this.felt = h("div", { class: "felt replay-felt" });
    this.seats = h("div", { class: "replay-seats", id: "replay-seats" });

    const end = { winners: data.winners, draw: data.draw };
    const title = end.draw
      ? tx("end.draw", { names: joinNodes(end.winners.map((s) => this.who(s)), " & ") })
      : tx("end.winner", { name: this.who(end.winners[0]) });
    const decided = data.decided_by
      ? t(data.decided_by === "out" && data.rules.scoring === "reward" ? "decided.out_reward" : `decided.${data.decided_by}`)
      : null;
    this.el = h("section", { class: "replay", id: "replay", "aria-labelledby": "replay-title" },
      h("header", { class: "replay-head" },
        h("div", { class: "replay-title" },
          h("p", { class: "kicker" }, t("replay.kicker")),
          h("h1", { id: "replay-title" }, title),
          decided ? h("p", { class: "decided" }, decided) : null),
        h("div", { class: "buttons replay-tools" },
          h("button", { type: "button", id: "replay-close", onclick: () => this.page.closeReplay() },
            icon("prev"), h("span", { class: "label" }, t("replay.back"))),
          h("a", {
            class: "button ghost", id: "replay-download", href: `/api/games/${this.id}/record`,
            download: `maumau-${this.page.gameId}.json`, title: t("end.download"),
          }, icon("download"), h("span", { class: "label" }, t("end.download"))))),
      h("div", { class: "replay-board" },
        this.felt,
        h("div", { class: "replay-info", "aria-live": "polite" }, this.position, this.action, this.turn)),
      h("nav", { class: "replay-controls", "aria-label": t("replay.controls") },
        h("label", { class: "sr-only", for: "replay-round" }, t("replay.round_pick")),
        this.roundPick,
        h("div", { class: "control-buttons" }, Object.values(this.buttons)),
        this.slider,
        h("p", { class: "keys help" }, t("replay.keys"))),
      this.seats);
  }

  update() {
    if (!this.el) return;
    const frames = this.frames();
    const frame = frames[this.step];
    const prev = this.step > 0 ? frames[this.step - 1] : null;
    const view = frame.view;
    const last = frames.length - 1;
    const forward = this.shown && this.shown.round === this.round && this.shown.step === this.step - 1;

    // controls
    const focused = document.activeElement;
    this.roundPick.value = String(this.round);
    this.slider.max = String(last);
    this.slider.value = String(this.step);
    this.slider.setAttribute("aria-valuetext", this.positionText(last));
    this.buttons.first.disabled = this.step === 0;
    this.buttons.prev.disabled = this.round === 0 && this.step === 0;
    this.buttons.next.disabled = this.atEnd();
    this.buttons.last.disabled = this.step === last;
    const playing = !!this.timer;
    const playLabel = t(playing ? "replay.pause" : "replay.play");
    this.buttons.play.replaceChildren(icon(playing ? "pause" : "play"));
    this.buttons.play.setAttribute("aria-label", playLabel);
    this.buttons.play.title = playLabel;
    this.buttons.play.setAttribute("aria-pressed", String(playing));
    if (focused?.disabled && focused.closest?.(".replay-controls")) {
      (this.buttons.next.disabled ? this.buttons.prev : this.buttons.next).focus();
    }

    // where we are, what happened, who is next
    this.position.textContent = `${t("table.round", { n: this.data.rounds[this.round].round + 1 })} · ${this.positionText(last)}`;
    this.action.replaceChildren(...this.describe(frame, prev).map((line, i) => h("p", { class: i ? "note" : "what" }, line)));
    this.turn.replaceChildren(...this.turnText(view));
    this.turn.classList.toggle("over", view.step === "over");

    this.felt.replaceChildren(...this.feltParts(view, forward && prev && prev.view.top !== view.top));
    this.seats.replaceChildren(...view.players.map((_, seat) => this.seatPanel(seat, frame, prev, frames[0])));
    this.el.dataset.round = String(this.round);
    this.el.dataset.step = String(this.step);
    this.shown = { round: this.round, step: this.step };
    if (this.page.replayOpen) history.replaceState(null, "", `#replay/${this.round + 1}/${this.step}`);
  }

  positionText(last) {
    return this.step === 0 ? t("replay.dealt") : t("replay.move", { n: this.step, total: last });
  }

  /** What led to `frame`, in words: the action, then what followed from it. */
  describe(frame, prev) {
    const action = frame.action;
    const view = frame.view;
    if (!action || !prev) return [tx("replay.deal", { name: this.who(view.to_move) })];
    const name = (s) => this.who(s);
    const before = prev.view;
    // the server's log entries of this step say everything (skips, kept cards, reasons);
    // the cards a seat drew are seen in the hands, as everything is after the game
    if (frame.events?.length) {
      const shown = new Set();
      return frame.events.map((e) => {
        if (("draw" in e || "penalty" in e) && !e.cards && !shown.has(e.seat)) {
          shown.add(e.seat);
          e = { ...e, cards: added(view.hands[e.seat], before.hands[e.seat]) };
        }
        return describeEntry(e, name);
      });
    }
    const lines = [];
    if ("draw" in action) {
      const cards = added(view.hands[action.seat], before.hands[action.seat]);
      lines.push(describeEntry({ seat: action.seat, draw: action.draw, cards }, name));
    } else {
      lines.push(describeEntry(action, name));
    }
    const played = "play" in action ? 1 : 0;
    if (view.discard.length < before.discard.length + played) lines.push(describeEntry({ reshuffle: true }, name));
    view.players.forEach((_, seat) => {
      if (seat === action.seat && "draw" in action) return;
      const expected = seat === action.seat ? -played : 0;
      const extra = view.counts[seat] - before.counts[seat] - expected;
      if (extra > 0) {
        const cards = added(view.hands[seat], before.hands[seat]);
        lines.push(describeEntry({ seat, penalty: extra, cards }, name));
      }
    });
    if (view.out !== null && view.out !== undefined && (before.out === null || before.out === undefined)) {
      lines.push(describeEntry({ out: view.out }, name));
    }
    return lines;
  }

  turnText(view) {
    if (view.step === "over") return [this.atEnd() ? t("end.kicker") : t("turn.round_over")];
    const name = this.who(view.to_move);
    if (view.step === "wait") return tx("replay.wait", { name: this.who(view.catchable), who: name });
    if (view.step === "drawn") return tx("replay.turn_drawn", { name });
    if (view.pending) return tx("replay.turn_pending", { name, n: view.pending });
    return tx("replay.turn", { name });
  }

  feltParts(view, arrived) {
    const dir = view.direction === 1 ? "cw" : "ccw";
    const named = view.named_suit
      ? h("div", { class: `named suit-${view.named_suit}`, id: "replay-named" },
        h("span", { html: suitSvg(view.named_suit) }), t("table.named", { suit: t(`suit.name.${view.named_suit}`) }))
      : null;
    return [
      h("div", { class: `direction ${dir}`, title: t(`table.direction.${dir}`) },
        h("span", { html: DIRECTION_SVG }),
        h("span", { class: "sr-only" }, t(`table.direction.${dir}`))),
      h("div", { class: "pile draw-pile" },
        h("div", {
          class: "card back-card", role: "img", html: cardBackSvg(),
          "aria-label": `${t("table.draw_pile")}: ${tn("table.cards", view.stock_count)}`,
        }),
        h("span", { class: "pile-label", id: "replay-stock" }, tn("table.cards", view.stock_count))),
      h("div", { class: "pile discard-pile" },
        h("div", {
          class: `card top ${arrived ? "arrive" : ""}`, id: "replay-top", dataset: { card: view.top },
          role: "img", "aria-label": `${t("table.top_card")}: ${cardName(view.top)}`,
          html: cardFaceSvg(view.top),
        }),
        view.pending ? h("span", { class: "pending", id: "replay-pending", title: t("replay.pending", { n: view.pending }) }, `+${view.pending}`) : null,
        named),
    ];
  }

  seatPanel(seat, frame, prev, dealt) {
    const view = frame.view;
    const hand = sortHand(view.hands[seat]);
    const fresh = new Set(prev ? added(view.hands[seat], prev.view.hands[seat]) : []);
    const over = view.step === "over";
    const turn = !over && view.to_move === seat;
    const acted = frame.action?.seat === seat;
    const out = view.out === seat;
    const gained = over ? view.totals[seat] - dealt.view.totals[seat] : null;
    const name = this.name(seat);
    const badges = [];
    if (turn) badges.push(h("span", { class: "badge turn-badge" }, t("replay.to_move")));
    if (out) badges.push(h("span", { class: "badge online" }, t("summary.out")));
    if (!out && view.catchable === seat) badges.push(h("span", { class: "badge offline" }, t("replay.catchable")));
    return h("article", {
      class: `replay-seat ${turn ? "turn" : ""} ${acted ? "acted" : ""} ${out ? "out" : ""}`,
      dataset: { seat },
    },
      h("div", { class: "replay-seat-head" },
        avatar(this.data.players[seat]),
        h("span", { class: "opp-name" }, this.who(seat)),
        badges),
      h("div", { class: "replay-seat-meta" },
        h("span", {}, tn("table.cards", hand.length)),
        h("span", {}, t("table.total", { n: view.totals[seat] })),
        gained === null ? null : h("strong", { class: "gained" }, gained > 0 ? `+${gained}` : String(gained))),
      h("div", { class: "replay-hand", role: "group", "aria-label": t("replay.hand_of", { name }) },
        hand.length
          ? hand.map((code) => h("span", {
            class: `rp-card ${fresh.has(code) ? "new" : ""}`, role: "img", "aria-label": cardName(code),
            dataset: { card: code }, html: cardFaceSvg(code),
          }))
          : h("span", { class: "help empty" }, t("replay.no_cards"))),
    );
  }
}

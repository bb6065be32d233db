// The felt in the middle: the draw pile, the discard pile with who played its top card and
// the card before it, the suit a Jack asked for, a pending Seven draw, the direction of
// play, and a short cue when a card skips a player or reverses the direction.

import { cardBackSvg, cardFaceSvg, cardName, suitSvg } from "./cards.js";
import { h } from "./dom.js";
import { t, tn } from "./i18n.js";
import { nameEl, shownName, tx } from "./names.js";

const CUE_MS = 2600;
const ARROW = '<svg viewBox="0 0 100 100" aria-hidden="true"><path d="M50 12a38 38 0 1 1-36 26" fill="none" stroke="currentColor" stroke-width="7" stroke-linecap="round"/><path d="M4 30l10 10 12-10" fill="none" stroke="currentColor" stroke-width="7" stroke-linecap="round" stroke-linejoin="round"/></svg>';

/** The play entries of this round's log, newest last. */
function plays(log) {
  return log.filter((e) => "play" in e);
}

/** The cue a new log entry gives (a skip or a reversal), or null. */
export function cueOf(entry, me, name) {
  if (!("play" in entry)) return null;
  if (entry.skipped !== undefined && entry.skipped !== null) {
    return entry.skipped === me
      ? { kind: "skip", nodes: [t("cue.you_skipped")] }
      : { kind: "skip", nodes: tx("cue.skipped", { name: nameEl(name(entry.skipped)) }) };
  }
  if (entry.reversed) return { kind: "reverse", nodes: [t("cue.reversed")] };
  return null;
}

/** Keeps the cue of the newest skip or reversal on screen for a moment. */
export class Cue {
  constructor() {
    this.current = null;
    this.until = 0;
    this.seen = { round: null, length: 0 };
    this.timer = null;
  }

  /** Take the cue of the entries added since the last call (none on the first view of a
   * round, so a reload does not replay an old cue). */
  update(view, me, name, onExpire) {
    const fresh = this.seen.round === view.round ? view.log.slice(this.seen.length) : [];
    this.seen = { round: view.round, length: view.log.length };
    for (const entry of fresh) {
      const cue = cueOf(entry, me, name);
      if (!cue) continue;
      this.current = { ...cue, id: `${view.round}-${view.log.indexOf(entry)}` };
      this.until = Date.now() + CUE_MS;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => { this.current = null; onExpire(); }, CUE_MS);
    }
    if (this.current && Date.now() > this.until) this.current = null;
    return this.current;
  }
}

export function renderFelt(table, view, cue) {
  const canDraw = table.legal().some((a) => "draw" in a);
  const played = plays(view.log);
  const last = played[played.length - 1];
  const changed = table.prev && (table.prev.top !== view.top || table.prev.round !== view.round);
  const from = last ? (last.seat === table.page.seat ? "from-me" : "from-opp") : "";
  const who = (entry) => (entry ? nameEl(table.name(entry.seat)) : null);
  const under = view.discard.length > 1 ? view.discard[view.discard.length - 2] : null;
  const underBy = played.length > 1 && under === played[played.length - 2].play ? played[played.length - 2] : null;
  const topLine = last && last.play === view.top
    ? tx("felt.played_by", { name: who(last) })
    : [t("felt.start_card")];
  const dir = view.direction === 1 ? "cw" : "ccw";
  const pileLabel = [`${t("table.top_card")}: ${cardName(view.top)}`];
  if (last && last.play === view.top) pileLabel.push(t("felt.played_by_plain", { name: shownName(table.name(last.seat)) }));
  if (view.pending) pileLabel.push(`+${view.pending}`);
  if (under) {
    pileLabel.push(underBy
      ? t("felt.before_by", { card: cardName(under), name: shownName(table.name(underBy.seat)) })
      : t("felt.before", { card: cardName(under) }));
  }
  return h("div", { class: `felt ${cue ? `cue-${cue.kind}` : ""}` },
    h("div", { class: `direction ${dir}`, title: t(`table.direction.${dir}`) },
      h("span", { html: ARROW }),
      h("span", { class: "sr-only" }, t(`table.direction.${dir}`))),
    h("div", { class: "pile draw-pile" },
      h("button", {
        type: "button", class: `card back-card ${canDraw ? "playable" : ""}`, id: "draw-pile",
        disabled: !canDraw, dataset: { focus: "draw-pile" },
        "aria-label": `${t("table.draw_pile")}: ${tn("table.cards", view.stock_count)}`,
        html: cardBackSvg(),
        onclick: () => table.draw(),
      }),
      h("span", { class: "pile-label" }, tn("table.cards", view.stock_count))),
    h("div", { class: "pile discard-pile", role: "img", "aria-label": pileLabel.join("; ") },
      h("div", { class: "stack" },
        under ? h("div", { class: "card under", id: "under-card", dataset: { card: under }, "aria-hidden": "true", html: cardFaceSvg(under) }) : null,
        h("div", {
          class: `card top ${changed ? `arrive ${from}` : ""}`, id: "top-card", dataset: { card: view.top },
          "aria-hidden": "true", html: cardFaceSvg(view.top),
        }),
        view.pending ? h("span", { class: "pending", id: "pending" }, `+${view.pending}`) : null),
      h("span", { class: "pile-label played-by", id: "played-by", "aria-hidden": "true" }, topLine)),
    view.named_suit
      ? h("div", { class: `named suit-${view.named_suit}`, id: "named-suit" },
        h("span", { class: "named-symbol", html: suitSvg(view.named_suit) }),
        h("span", { class: "named-text" }, t("table.named", { suit: t(`suit.name.${view.named_suit}`) })))
      : null,
    cue
      // (said by the log line the screen reader hears: see TableView.announce)
      ? h("div", { class: `cue ${cue.kind}`, id: "cue", "aria-hidden": "true", dataset: { cue: cue.id } }, cue.nodes)
      : null,
  );
}

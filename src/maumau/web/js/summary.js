// The round summary (every hand, points, totals, chart, the revealed shuffle), looked at
// again later with the Scores button, and the game's result (winner or draw, the
// tie-break, rematch, replay, the record).

import { cardName, rankLabel, rankOf, sortHand, suitOf, suitSvg } from "./cards.js";
import { totalsChart } from "./chart.js";
import { h } from "./dom.js";
import { language, t, tn } from "./i18n.js";
import { joinNodes, nameEl, nameYou, tx } from "./names.js";
import { verifyShuffle } from "./shuffle.js";
import { secondsUntil } from "./turnclock.js"; // by the server's clock

let readyTimer = null;

function dialogEl() {
  let dialog = document.getElementById("result-dialog");
  if (!dialog) {
    dialog = h("dialog", { id: "result-dialog", class: "sheet result", "aria-labelledby": "result-title" });
    dialog.addEventListener("cancel", (e) => {
      e.preventDefault();
      // Escape closes a summary looked at again; the others wait for their button.
      if (dialog.dataset.review === "1") dialog.querySelector("#close-scores")?.click();
    });
    document.body.append(dialog);
  }
  return dialog;
}

/** round: a round_end message; end: the game_end message; review: a round looked at
 * again during the game (closed with Close, with tabs for the other finished rounds). */
export function renderResult(page, { round = null, end = null, review = false } = {}) {
  const dialog = dialogEl();
  clearInterval(readyTimer);
  if (!round && !end) {
    if (dialog.open) dialog.close();
    dialog.dataset.key = "";
    return;
  }
  const finished = page.info.status === "finished";
  const key = [
    language(), round?.round ?? "-", end ? "end" : "", end?.decided_by ?? "", review ? "review" : "",
    page.history.rounds.length, finished ? "finished" : "", page.rematch?.game_id ?? page.info.rematch_id ?? "",
  ].join(":");
  const waiting = !end && !review && !!round;
  if (dialog.open && dialog.dataset.key === key) {
    if (waiting) showReady(page, dialog, round);
    return;
  }
  dialog.dataset.key = key;
  dialog.dataset.review = review ? "1" : "0";
  const view = page.state.view;
  const players = view.players;
  const rules = page.info.rules;
  const rounds = page.history.rounds.filter((r) => !round || r.round <= round.round);
  const previous = rounds.find((r) => round && r.round === round.round - 1);
  const name = (s) => nameYou(players[s], s === page.seat);

  let title;
  if (end) {
    title = end.draw ? tx("end.draw", { names: joinNodes(end.winners.map(name), " & ") }) : tx("end.winner", { name: name(end.winners[0]) });
  } else {
    title = tx("summary.title", { n: round.round + 1, name: name(round.out) });
  }
  const totals = end?.totals ?? round?.totals ?? view.totals;
  const hands = round?.hands ?? view.hands ?? [];
  // the columns the scoring mode needs: one deal (single) has no points, totals or
  // rounds won; the series keep them (rounds won is the tie-break of penalty and deals)
  const series = rules.scoring !== "single";
  const rows = players.map((_, s) => {
    const gained = round ? round.totals[s] - (previous ? previous.totals[s] : round.round === 0 ? 0 : null) : null;
    return h("tr", { class: `${end?.winners.includes(s) ? "winner" : ""} ${round?.out === s ? "out" : ""}` },
      h("th", { scope: "row" }, name(s), round?.out === s ? h("span", { class: "badge online" }, t("summary.out")) : null,
        waiting ? h("span", { class: "ready-mark", dataset: { seat: s }, hidden: true }, "✓", h("span", { class: "sr-only" }, t("summary.ready"))) : null),
      h("td", { class: "reveal" },
        (hands[s] || []).length
          ? h("span", { class: "mini-hand", role: "list" }, sortHand(hands[s]).map(chip))
          : h("span", { class: "help" }, "—")),
      h("td", { class: "num" }, round ? String(round.hand_values[s]) : ""),
      series ? h("td", { class: "num" }, gained === null ? "" : gained > 0 ? `+${gained}` : String(gained)) : null,
      series ? h("td", { class: "num total" }, String(totals[s])) : null,
      series ? h("td", { class: "num" }, String((end?.rounds_won ?? round?.rounds_won ?? view.rounds_won)[s])) : null,
    );
  });
  const table = h("div", { class: "scroll" },
    h("table", { class: `scores ${series ? "series" : "single"}`, id: "scores", dataset: { scoring: rules.scoring } },
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, t("summary.player")),
        h("th", { scope: "col" }, t("summary.hand")),
        h("th", { scope: "col", class: "num" }, t("summary.value")),
        series ? h("th", { scope: "col", class: "num" }, t("summary.points")) : null,
        series ? h("th", { scope: "col", class: "num" }, t("summary.total")) : null,
        series ? h("th", { scope: "col", class: "num" }, t("summary.won")) : null)),
      h("tbody", {}, rows)));

  const scored = rules.scoring !== "single" && rounds.length > 0;
  const limit = ["penalty", "reward"].includes(rules.scoring) ? rules.limit : null;
  const shuffle = round ? shuffleNote(round) : null;

  let buttons;
  if (end) {
    const rematchId = page.rematch?.game_id ?? page.info.rematch_id;
    buttons = [
      page.seat !== null || rematchId // (someone watching is offered to join the rematch)
        ? h("button", {
          class: "primary big", type: "button", id: "rematch",
          onclick: () => (rematchId ? page.followRematch({ game_id: rematchId, invite: `/g/${rematchId}` }) : page.startRematch()),
        }, rematchId ? t("end.join_rematch") : t("end.rematch"))
        : null,
      finished
        ? h("button", { class: "button", type: "button", id: "open-replay", onclick: () => page.openReplay() }, t("end.replay"))
        : null,
      h("a", { class: "button ghost", id: "download-record", href: `/api/games/${encodeURIComponent(page.gameId)}/record`, download: `maumau-${page.gameId}.json` }, t("end.download")),
      h("a", { class: "button ghost", href: "/" }, t("nav.new_table")),
    ];
  } else if (review) {
    buttons = [h("button", { class: "primary big", type: "button", id: "close-scores", onclick: () => page.closeSummary() }, t("dialog.close"))];
  } else {
    // A seated player says ready (the round is dealt when all have, or the countdown ends);
    // someone watching just closes the summary.
    buttons = [h("button", {
      class: "primary big", type: "button", id: "next-round",
      onclick: () => (page.seat === null ? page.closeSummary() : page.sayReady()),
    }, t("summary.next"))];
  }
  const all = page.history.rounds;
  const tabs = review && all.length > 1
    ? h("nav", { class: "round-tabs", "aria-label": t("summary.rounds") },
      h("span", { class: "help" }, t("summary.rounds")),
      all.map((r) => h("button", {
        type: "button", class: `small ${r.round === round.round ? "current" : ""}`,
        "aria-pressed": String(r.round === round.round), "aria-label": t("table.round", { n: r.round + 1 }),
        dataset: { round: r.round },
        onclick: () => page.openScores(r.round),
      }, String(r.round + 1))))
    : null;

  const tabFocused = !!document.activeElement?.closest?.("#result-dialog .round-tabs");
  dialog.replaceChildren(
    h("div", { class: "sheet-body" },
      h("p", { class: "kicker" }, end ? t("end.kicker") : tn("summary.kicker", round.round + 1)),
      h("h1", { id: "result-title" }, title),
      tabs,
      end && end.decided_by ? h("p", { class: "decided", id: "decided-by" }, t(end.decided_by === "out" && rules.scoring === "reward" ? "decided.out_reward" : `decided.${end.decided_by}`)) : null,
      table,
      scored ? h("h2", {}, t("chart.title")) : null,
      scored ? totalsChart(rounds, players.map((p) => nameEl(p)), limit) : null,
      shuffle,
      // the waiting note is announced; the ticking seconds are not (they would chatter)
      waiting ? h("p", { class: "next-wait", id: "next-wait", hidden: true },
        h("span", { id: "wait-text", role: "status" }), " ", h("span", { id: "wait-count" })) : null,
      h("div", { class: "buttons" }, buttons),
    ),
  );
  if (waiting) showReady(page, dialog, round);
  const opening = !dialog.open;
  if (opening) dialog.showModal();
  // Focus goes into the dialog without scrolling it: on a small phone the buttons are
  // below the fold, and the dialog opens at its headline (who went out, who won).
  if (tabFocused) dialog.querySelector(".round-tabs .current")?.focus({ preventScroll: true });
  else dialog.querySelector(".buttons .primary, .buttons .button")?.focus({ preventScroll: true });
  if (opening || !tabFocused) dialog.scrollTop = 0;
}

/** A revealed card as a small chip that reads at any size: rank and suit. */
function chip(code) {
  const suit = suitOf(code);
  return h("span", { class: `mini-card suit-${suit}`, role: "listitem", dataset: { card: code } },
    h("span", { class: "rank", "aria-hidden": "true" }, rankLabel(rankOf(code))),
    h("span", { class: "pip", html: suitSvg(suit) }),
    h("span", { class: "sr-only" }, cardName(code)));
}

/** Between rounds: ✓ by the players who are ready, "waiting" once this player is, and
 * the seconds until the next round is dealt anyway (ticking). */
function showReady(page, dialog, round) {
  clearInterval(readyTimer);
  const state = page.state;
  const between = state.view.round === round.round && state.view.step === "over" && !state.view.finished;
  const ready = new Set(between ? state.ready || [] : []);
  for (const mark of dialog.querySelectorAll(".ready-mark")) mark.hidden = !ready.has(Number(mark.dataset.seat));
  const mine = page.seat !== null && page.isReady(round.round);
  const button = dialog.querySelector("#next-round");
  if (button) {
    // stays focusable (and Enter still reaches it), but says it has been pressed
    button.setAttribute("aria-disabled", String(mine));
    button.classList.toggle("sent", mine);
  }
  const line = dialog.querySelector("#next-wait");
  if (!line) return;
  const at = between ? state.next_round_at : null;
  const text = line.querySelector("#wait-text");
  const count = line.querySelector("#wait-count");
  const wait = mine ? t("summary.waiting") : "";
  if (text.textContent !== wait) text.textContent = wait;
  const update = () => {
    const left = at ? t("summary.starts_in", { n: Math.ceil(secondsUntil(state, at)) }) : "";
    if (count.textContent !== left) count.textContent = left;
    line.hidden = !wait && !left;
  };
  update();
  if (at) readyTimer = setInterval(update, 1000);
}

function shuffleNote(round) {
  const note = h("details", { class: "shuffle" },
    h("summary", {}, t("shuffle.title")),
    h("p", { class: "help" }, t("shuffle.help")),
    h("dl", {},
      h("dt", {}, t("shuffle.commitment")), h("dd", {}, h("code", {}, round.commitment ?? "—")),
      h("dt", {}, t("shuffle.seed")), h("dd", {}, h("code", {}, String(round.seed))),
      h("dt", {}, t("shuffle.salt")), h("dd", {}, h("code", {}, round.salt ?? "—"))));
  const verdict = h("p", { class: "verdict" });
  note.append(verdict);
  verifyShuffle(round.seed, round.salt, round.commitment).then((ok) => {
    if (ok === null) return;
    verdict.textContent = ok ? t("shuffle.ok") : t("shuffle.bad");
    verdict.classList.add(ok ? "ok" : "bad");
  });
  return note;
}

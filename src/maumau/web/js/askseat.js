// Late friends: someone who opens the invite link after the start watches, and may ask
// the host for a seat a computer plays (a bot, or a stand-in for a player who left); the
// host answers with one click. Also the number of people watching, for everyone.

import { h } from "./dom.js";
import { t, tn } from "./i18n.js";
import { nameEl, nameError, nameMessage, tx } from "./names.js";
import { saveName, savedName, saveToken } from "./seats.js";
import { showError, toast } from "./toast.js";

// refusals of a request that concern the name field (shown under it)
const NAME_CODES = new Set(["bad_name", "name_taken"]);
// refusals of a request or an answer (a toast, and the dialog closes)
const ASK_CODES = new Set(["not_spectator", "not_playing", "seat_not_computer", "already_asked",
  "too_many_requests", "unknown_request", "unknown_seat"]);

/** The seats a computer plays now: a bot, or a player's seat a stand-in plays. */
export function computerSeats(info) {
  if (info?.status !== "playing") return [];
  return info.seats.filter((s) => s.position !== info.host && (s.kind === "bot" || s.stand_in));
}

/** "3 watching" for the table's status line (nothing while nobody watches). */
export function watchCount(info) {
  const n = info?.spectators || 0;
  if (!n) return null;
  return h("span", { class: "watch-count", id: "watch-count" }, tn("watch.count", n));
}

export class SeatAsk {
  constructor(page) {
    this.page = page;
    this.open = null; // this spectator's open request (its seat_asked message)
    this.requests = []; // the host's open requests (seat_requests)
    this.dialog = null;
    this.nameLine = null;
  }

  /** A message of the late-friends flow: handled here (true), or not one (false). */
  receive(msg) {
    const page = this.page;
    switch (msg.type) {
      case "welcome": // a new connection: a request of the old one ended with it
        this.open = null;
        this.requests = [];
        return false;
      case "seat_asked":
        this.open = msg;
        this.dialog?.close();
        break;
      case "seat_request_ended":
        this.open = null;
        toast(t(`askseat.ended.${msg.reason}`), msg.reason === "withdrawn" ? "info" : "error");
        break;
      case "seat_requests":
        this.requests = msg.requests;
        break;
      case "seat_given":
        // kept as a claimed seat's token is; the welcome for the seat follows at once
        page.token = msg.token;
        saveToken(page.gameId, msg.token);
        if (page.connection) page.connection.token = msg.token;
        this.open = null;
        toast(t("askseat.given"));
        break;
      case "error":
        if (this.dialog?.open && NAME_CODES.has(msg.code)) {
          this.nameLine?.show(nameError(msg, this.dialog.querySelector("#ask-name").value));
          this.dialog.querySelector("#ask-send").disabled = false;
          return true;
        }
        // an ask over the address's limit is answered rate_limited: the dialog waits for it
        if (!ASK_CODES.has(msg.code) && !(this.dialog?.open && msg.code === "rate_limited")) {
          return false;
        }
        this.dialog?.close();
        showError(msg);
        break;
      default:
        return false;
    }
    this.render();
    return true;
  }

  /** Draw the watching notice (a spectator) and the host's prompts, as they are now. */
  render() {
    this.renderNotice();
    this.renderPrompts();
  }

  renderNotice() {
    const page = this.page;
    let el = document.getElementById("watching");
    const show = page.seat === null && page.info?.status === "playing" && !!page.state;
    if (!show) {
      el?.remove();
      return;
    }
    if (!el) {
      el = h("section", { id: "watching", class: "watching-bar", "aria-live": "polite" });
      document.body.append(el);
    }
    const free = computerSeats(page.info);
    const seat = this.open ? page.info.seats[this.open.seat] : null;
    // redrawn only when what it shows changed: a button swapped under a tap or a keyboard
    // focus at every state update would lose them
    const key = JSON.stringify([document.documentElement.lang, this.open?.seat ?? null,
      seat?.name ?? null, free.length > 0]);
    if (el.dataset.key === key) return;
    el.dataset.key = key;
    let body;
    if (this.open) {
      body = [
        h("p", { class: "watching-text" }, tx("askseat.waiting", { name: nameEl(seat?.name ?? "") })),
        h("button", { type: "button", class: "ghost", id: "ask-withdraw", onclick: () => this.withdraw() },
          t("askseat.withdraw")),
      ];
    } else {
      body = [
        h("p", { class: "watching-text" }, free.length ? t("watch.notice") : t("watch.only")),
        free.length
          ? h("button", { type: "button", class: "primary", id: "ask-seat", onclick: () => this.openDialog() },
            t("askseat.button"))
          : null,
      ];
    }
    el.replaceChildren(...body.filter(Boolean));
  }

  renderPrompts() {
    const page = this.page;
    let el = document.getElementById("seat-prompts");
    const show = page.isHost && page.info?.status === "playing" && this.requests.length > 0;
    if (!show) {
      el?.remove();
      return;
    }
    if (!el) {
      el = h("section", { id: "seat-prompts", class: "seat-prompts", "aria-label": t("askseat.prompts"), "aria-live": "polite" });
      document.body.append(el);
    }
    const key = JSON.stringify([document.documentElement.lang,
      this.requests.map((r) => [r.request, r.name, page.info.seats[r.seat]?.name ?? ""])]);
    if (el.dataset.key === key) return;
    el.dataset.key = key;
    el.replaceChildren(...this.requests.map((r) => {
      const seat = page.info.seats[r.seat];
      return h("div", { class: "seat-prompt", dataset: { request: r.request } },
        h("p", {}, tx("askseat.asks", { name: nameEl(r.name), seat: nameEl(seat?.name ?? "") })),
        h("div", { class: "seat-prompt-buttons" },
          h("button", { type: "button", class: "primary", dataset: { answer: "accept" }, onclick: () => this.answer(r, true) },
            t("askseat.accept")),
          h("button", { type: "button", class: "ghost", dataset: { answer: "decline" }, onclick: () => this.answer(r, false) },
            t("askseat.decline"))));
    }));
  }

  answer(request, accept) {
    if (!this.page.connection?.send({ type: "answer_seat", request: request.request, accept })) {
      toast(t("conn.offline"), "error");
      return;
    }
    // shown as answered at once; the server's list follows
    this.requests = this.requests.filter((r) => r.request !== request.request);
    this.renderPrompts();
  }

  withdraw() {
    if (!this.page.connection?.send({ type: "withdraw_seat" })) toast(t("conn.offline"), "error");
  }

  openDialog() {
    this.dialog?.remove();
    const free = computerSeats(this.page.info);
    if (!free.length) return;
    const name = h("input", { id: "ask-name", required: true, maxlength: 32, value: savedName(), autocomplete: "nickname" });
    this.nameLine = nameMessage(name);
    const send = h("button", { class: "primary big", type: "submit", id: "ask-send" }, t("askseat.send"));
    const choices = free.map((s, i) => h("label", { class: "ask-choice" },
      h("input", { type: "radio", name: "ask-seat", value: String(s.position), checked: i === 0 }),
      h("span", { class: "ask-choice-name" }, nameEl(s.name)),
      h("span", { class: "badge bot" }, s.kind === "bot" ? t("askseat.kind.bot") : t("askseat.kind.stand_in"))));
    const dialog = h("dialog", { id: "ask-seat-dialog", class: "sheet ask-dialog", "aria-labelledby": "ask-title" },
      h("form", {
        method: "dialog",
        onsubmit: (e) => {
          e.preventDefault();
          const player = name.value.trim();
          if (!player) {
            this.nameLine.show([t("name.rule.blank")]);
            return;
          }
          const seat = Number(dialog.querySelector("input[name=ask-seat]:checked")?.value ?? free[0].position);
          saveName(player);
          if (!this.page.connection?.send({ type: "ask_seat", seat, name: player })) {
            toast(t("conn.offline"), "error");
            return;
          }
          send.disabled = true;
        },
      },
        h("h2", { id: "ask-title" }, t("askseat.title")),
        h("p", { class: "help" }, t("askseat.help")),
        this.page.info.seats[this.page.info.host]?.connected
          ? null
          : h("p", { class: "help host-away", id: "ask-host-away" }, t("askseat.host_away")),
        h("fieldset", { class: "ask-choices" }, h("legend", {}, t("askseat.which")), choices),
        h("div", { class: "field" }, h("label", { for: "ask-name" }, t("home.your_name")), name, this.nameLine.line),
        h("div", { class: "ask-buttons" }, send,
          h("button", { type: "button", class: "ghost", onclick: () => dialog.close() }, t("dialog.cancel")))));
    dialog.addEventListener("close", () => {
      dialog.remove();
      if (this.dialog === dialog) this.dialog = null;
    });
    document.body.append(dialog);
    this.dialog = dialog;
    dialog.showModal();
    name.focus();
  }
}

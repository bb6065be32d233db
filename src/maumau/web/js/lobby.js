// The lobby: the invite link (copy, QR code), the seats, computer players, start.

import { api } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { avatar, joinNodes, nameEl, nameError, nameMessage, tx } from "./names.js";
import { ruleSummary } from "./rules.js";
import { saveBotLevel, saveName, savedBotLevel, savedName } from "./seats.js";
import { shareButton } from "./share.js";
import { showError, toast } from "./toast.js";

const LEVELS = ["random", "easy", "normal", "hard"];

// the computer level last chosen, kept when the lobby is drawn again
let chosenLevel = LEVELS.includes(savedBotLevel()) ? savedBotLevel() : "normal";

/** Where the keyboard focus is in `root`: an id, or a seat's button by its row. */
function focusMark(root) {
  const el = document.activeElement;
  if (!el || el === document.body || !root.contains(el)) return null;
  return el.id ? { id: el.id } : el.dataset.focus ? { row: Number(el.dataset.focus) } : null;
}

/** Put the focus back after the lobby was drawn again: on the same control, or (its
 * seat removed) on the next seat's button, the one before, or the computer level. */
function restoreFocus(root, mark) {
  if (!mark) return;
  let el = mark.id ? document.getElementById(mark.id) : null;
  if (mark.row !== undefined) {
    const buttons = [...root.querySelectorAll("#seats button[data-focus]")];
    el = buttons.find((b) => Number(b.dataset.focus) >= mark.row) || buttons[buttons.length - 1];
  }
  if (!el || el.disabled) el = document.getElementById("bot-level");
  el?.focus();
}

function inviteUrl(info) {
  return new URL(info.invite, location.origin).href;
}

async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const field = document.getElementById("invite-link");
    field.select();
    document.execCommand("copy");
  }
  toast(t("lobby.copied"));
}

function inviteBlock(info) {
  const url = inviteUrl(info);
  const qr = h("figure", { class: "qr", id: "invite-qr" },
    h("img", {
      src: `/api/games/${encodeURIComponent(info.game_id)}/qr.svg`, width: 148, height: 148,
      alt: t("lobby.qr_alt"),
      onerror: () => { qr.hidden = true; },
    }),
    h("figcaption", {}, t("lobby.qr_caption")));
  return h("div", { class: "invite" },
    h("div", { class: "invite-text" },
      h("h2", {}, t("lobby.invite")),
      h("p", { class: "help" }, t("lobby.invite_help")),
      h("div", { class: "copy-row" },
        h("input", { id: "invite-link", readonly: true, value: url, "aria-label": t("lobby.invite"), onfocus: (e) => e.target.select() }),
        h("button", { class: "primary", type: "button", id: "copy-invite", onclick: () => copy(url) }, t("lobby.copy")),
        shareButton(url),
      ),
    ),
    qr,
  );
}

function seatState(seat) {
  if (seat.kind === "bot") return h("span", { class: "badge bot" }, t("seat.bot", { level: t(`level.${seat.level}`) }));
  if (seat.connected) return h("span", { class: "badge online" }, t("seat.online"));
  return h("span", { class: "badge offline" }, t("seat.offline"));
}

export function renderLobby(root, page) {
  const info = page.info;
  const id = encodeURIComponent(info.game_id);
  const host = page.isHost;
  const call = async (method, path, body) => {
    try {
      await api(method, path, { body, token: page.token });
    } catch (err) {
      showError(err);
    }
  };
  const mark = focusMark(root);
  const seats = h("ol", { class: "seats", id: "seats" },
    info.seats.map((seat, row) =>
      h("li", { class: `seat-row ${seat.position === page.seat ? "me" : ""}`, dataset: { seat: seat.position, kind: seat.kind } },
        avatar(seat.name),
        h("span", { class: "seat-name" }, nameEl(seat.name),
          seat.position === page.seat ? h("small", {}, ` (${t("seat.you")})`) : null,
          seat.position === info.host ? h("small", { class: "host" }, ` · ${t("seat.host")}`) : null),
        h("span", { class: "seat-tools" },
          seatState(seat),
          (host && seat.position !== info.host) || (!host && seat.position === page.seat)
            ? h("button", {
              class: "ghost small", type: "button", dataset: { focus: row },
              "aria-label": t(seat.position === page.seat ? "lobby.leave" : "lobby.remove_named", { name: seat.name }),
              onclick: () => call("DELETE", `/api/games/${id}/seats/${seat.position}`),
            }, seat.position === page.seat ? t("lobby.leave") : t("lobby.remove"))
            : null),
      ),
    ),
    Array.from({ length: Math.max(0, Math.min(info.max_seats, 4) - info.seats.length) }, () =>
      h("li", { class: "seat-row empty" }, h("span", { class: "avatar" }, "?"), h("span", { class: "seat-name" }, t("lobby.free_seat")))),
  );

  const level = h("select", { id: "bot-level", onchange: (e) => { chosenLevel = e.target.value; saveBotLevel(chosenLevel); } },
    LEVELS.map((l) => h("option", { value: l, selected: l === chosenLevel }, t(`level.${l}`))));
  const full = info.seats.length >= info.max_seats;
  const hostTools = host
    ? h("div", { class: "host-tools" },
      h("div", { class: "add-bot" },
        h("label", { for: "bot-level" }, t("lobby.bot_level")), level,
        h("button", {
          type: "button", id: "add-bot", disabled: full,
          onclick: () => call("POST", `/api/games/${id}/bots`, { level: level.value }),
        }, t("lobby.add_bot"))),
      h("button", {
        class: "primary big", type: "button", id: "start-game", disabled: info.seats.length < 2,
        onclick: () => call("POST", `/api/games/${id}/start`),
      }, t("lobby.start")),
      info.seats.length < 2 ? h("p", { class: "help" }, t("lobby.need_two")) : null)
    : h("p", { class: "waiting" }, t("lobby.waiting_host"));

  root.replaceChildren(
    h("section", { class: "lobby" },
      h("div", { class: "panel" },
        h("h1", {}, t("lobby.title")),
        inviteBlock(info),
      ),
      h("div", { class: "panel" },
        h("h2", {}, t("lobby.players", { n: info.seats.length, max: info.max_seats })),
        seats,
        hostTools,
      ),
      h("div", { class: "panel rules-brief" },
        h("h2", {}, t("lobby.rules")),
        ruleSummary(info),
        researchNote(info),
      ),
    ),
  );
  restoreFocus(root, mark);
}

/** Everyone is told when the host shares the table's games as research data. */
function researchNote(info) {
  return info.settings?.research_export
    ? h("p", { class: "help research-note", id: "research-note" }, t("lobby.research_export"))
    : null;
}

export function renderJoin(root, page) {
  const info = page.info;
  const name = h("input", { id: "join-name", required: true, maxlength: 32, value: savedName(), autocomplete: "nickname" });
  const button = h("button", { class: "primary big", type: "submit", id: "join" }, t("join.button"));
  const message = nameMessage(name);
  const full = info.seats.length >= info.max_seats;
  root.replaceChildren(
    h("section", { class: "lobby" },
      h("form", {
        class: "panel join",
        onsubmit: async (e) => {
          e.preventDefault();
          const player = name.value.trim();
          if (!player) {
            message.show([t("name.rule.blank")]);
            return;
          }
          saveName(player);
          button.disabled = true;
          try {
            await page.join(player);
          } catch (err) {
            const why = nameError(err, player);
            if (why) message.show(why);
            else showError(err);
            button.disabled = false;
          }
        },
      },
        h("h1", {}, t("join.title")),
        h("p", {}, tx("join.text", { players: joinNodes(info.seats.map((s) => nameEl(s.name)), ", ") })),
        full ? h("p", { class: "help" }, t("error.table_full")) : null,
        researchNote(info),
        h("div", { class: "field" }, h("label", { for: "join-name" }, t("home.your_name")), name, message.line),
        button,
      ),
      h("div", { class: "panel rules-brief" }, h("h2", {}, t("lobby.rules")), ruleSummary(info)),
    ),
  );
}

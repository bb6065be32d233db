// The table's chat and reactions (docs/protocol.md, "Chat and reactions").  One panel is
// built once and kept, so that what is being typed survives every new state: on wide
// screens it sits in the side panel under the log; on phones a button with an unread
// badge opens it in a sheet.  Lines and reactions also show for a moment as a bubble at
// the sender's seat (an opponent's box, your own hand, the felt for a spectator).  The
// muted players' lines and reactions are not shown (mute.js).

import { h, replace } from "./dom.js";
import { language, t, tn } from "./i18n.js";
import { loadMuted, saveMuted } from "./mute.js";
import { nameEl } from "./names.js";
import { reactionNode, reactionRow } from "./reactions.js";
import { toast } from "./toast.js";

/** The longest line the server takes (maumau/server/live/chat.py MAX_TEXT). */
const MAX_TEXT = 200;
/** The lines a table keeps, and so the most shown. */
const KEEP = 50;
/** The phone's chat button: a speech bubble (this project's own drawing). */
const SPEECH = '<svg viewBox="0 0 24 24"><path d="M4 4.5h16a2 2 0 0 1 2 2v9a2 2 0 0 1-2 2h-9l-5 4v-4H4a2 2 0 0 1-2-2v-9a2 2 0 0 1 2-2z" fill="currentColor"/></svg>';
/** How long a bubble stays at a seat. */
const BUBBLE_MS = 4000;
/** What the host allows at a new table. */
const DEFAULTS = { chat: true, spectators: false, spectator_reactions: true };
/** The host's switches: each box's id and its words. */
const SWITCHES = { "chat-on": "chat.host_on", "chat-spectators": "chat.host_spectators", "chat-spectator-reactions": "chat.host_spectator_reactions" };

/** What the host allows, from a chat_history or chat_options message. */
function optionsOf(msg) {
  return { chat: msg.chat, spectators: msg.spectators, spectator_reactions: msg.spectator_reactions ?? true };
}

export class ChatView {
  constructor(page) {
    this.page = page;
    this.lines = [];
    this.options = DEFAULTS;
    this.unread = 0;
    this.muted = loadMuted(page.gameId);
    this.bubbles = new Map(); // place ("seat-N", "spectators") -> { make, kind, until }
    this.panel = this.build();
    this.lang = language(); // the language the panel's reaction buttons are in
    this.sheet = null;
    this.tab = "log"; // wide screens: the side panel shows the log or the chat
  }

  // --- messages ---------------------------------------------------------------------

  /** Take a chat message from the server; whether it was one. */
  receive(msg) {
    switch (msg.type) {
      case "welcome": // a new connection: chat_history follows unless the chat is new
        this.lines = [];
        this.options = DEFAULTS;
        this.refresh();
        return false;
      case "chat_history":
        this.lines = msg.lines.slice(-KEEP);
        this.options = optionsOf(msg);
        break;
      case "chat_line":
        if (this.lines.some((l) => l.id === msg.line.id)) return true;
        this.lines = [...this.lines, msg.line].slice(-KEEP);
        if (!this.isMuted(msg.line.seat)) {
          this.bubble(msg.line.seat, () => msg.line.text, "line");
          if (msg.line.seat !== this.page.seat && !this.shown()) this.unread += 1;
        }
        break;
      case "reaction":
        if (!this.isMuted(msg.seat)) this.bubble(msg.seat, () => reactionNode(msg.key), "reaction");
        return true;
      case "chat_options":
        this.options = optionsOf(msg);
        break;
      default:
        return false;
    }
    this.refresh();
    return true;
  }

  isMuted(seat) {
    return seat !== null && seat !== undefined && this.muted.has(seat);
  }

  setMuted(seat, muted) {
    if (muted) this.muted.add(seat);
    else this.muted.delete(seat);
    saveMuted(this.page.gameId, this.muted);
    this.bubbles.delete(`seat-${seat}`);
    this.refresh();
    if (this.page.state) this.page.render();
  }

  /** Whether this connection may chat now (the server decides; this only says so). */
  canChat() {
    return this.options.chat && (this.page.seat !== null || this.options.spectators);
  }

  /** Whether this connection may react now (a spectator: unless the host said no). */
  canReact() {
    return this.page.seat !== null || this.options.spectator_reactions;
  }

  send(message) {
    if (!this.page.connection?.send(message)) {
      toast(t("conn.offline"), "error");
      return false;
    }
    return true;
  }

  react(key) {
    if (this.send({ type: "react", key })) this.sheet?.close();
  }

  say() {
    const input = this.panel.querySelector("#chat-input");
    const text = input.value.trim();
    if (!text) return;
    if (this.send({ type: "chat", text })) input.value = "";
  }

  choose(changes) {
    this.send({ type: "set_chat", ...this.options, ...changes });
  }

  // --- the panel --------------------------------------------------------------------

  build() {
    const input = h("input", {
      id: "chat-input", class: "chat-input", type: "text", maxlength: String(MAX_TEXT), autocomplete: "off",
      enterkeyhint: "send", dataset: { focus: "chat-input" }, "aria-label": t("chat.placeholder"),
      placeholder: t("chat.placeholder"),
    });
    return h("section", { class: "chat", id: "chat", "aria-labelledby": "chat-title" },
      h("h2", { id: "chat-title" }, t("chat.title")),
      reactionRow((key) => this.react(key)),
      h("p", { class: "chat-note", id: "react-note", hidden: true }),
      h("ol", { class: "chat-lines", id: "chat-lines", "aria-live": "polite" }),
      h("p", { class: "chat-note", id: "chat-note", hidden: true }),
      h("form", {
        class: "chat-form", id: "chat-form",
        onsubmit: (e) => { e.preventDefault(); this.say(); },
      }, input, h("button", { type: "submit", class: "chat-send", id: "chat-send" }, t("chat.send"))),
      h("div", { class: "chat-host", id: "chat-host", hidden: true },
        h("label", {}, h("input", {
          type: "checkbox", id: "chat-on",
          onchange: (e) => this.choose({ chat: e.target.checked }),
        }), " ", t("chat.host_on")),
        h("label", {}, h("input", {
          type: "checkbox", id: "chat-spectators",
          onchange: (e) => this.choose({ spectators: e.target.checked }),
        }), " ", t("chat.host_spectators")),
        h("label", {}, h("input", {
          type: "checkbox", id: "chat-spectator-reactions",
          onchange: (e) => this.choose({ spectator_reactions: e.target.checked }),
        }), " ", t("chat.host_spectator_reactions"))));
  }

  /** Bring the panel up to date (lines, note, form, the host's switches, the badge). */
  refresh() {
    const panel = this.panel;
    // (the static words again: the language may have changed)
    if (this.lang !== language()) {
      this.lang = language();
      panel.querySelector(".reactions").replaceWith(reactionRow((key) => this.react(key)));
    }
    panel.querySelector("#chat-title").textContent = t("chat.title");
    panel.querySelector("#chat-send").textContent = t("chat.send");
    const input = panel.querySelector("#chat-input");
    input.placeholder = t("chat.placeholder");
    input.setAttribute("aria-label", t("chat.placeholder"));
    const list = panel.querySelector("#chat-lines");
    const stick = list.scrollTop + list.clientHeight >= list.scrollHeight - 8;
    const shown = this.lines.filter((l) => !this.isMuted(l.seat));
    replace(list, shown.length
      ? shown.map((line) => this.lineEl(line))
      : h("li", { class: "help chat-empty" }, t("chat.empty")));
    if (stick || !this.shown()) list.scrollTop = list.scrollHeight;
    const note = panel.querySelector("#chat-note");
    const can = this.canChat();
    note.hidden = can;
    note.textContent = !this.options.chat ? t("chat.off") : t("chat.spectators_off");
    panel.querySelector("#chat-form").hidden = !can;
    const react = this.canReact();
    panel.querySelector(".reactions").hidden = !react;
    const reactNote = panel.querySelector("#react-note");
    reactNote.hidden = react;
    reactNote.textContent = t("chat.spectator_reactions_off");
    panel.classList.toggle("off", !this.options.chat);
    const host = panel.querySelector("#chat-host");
    host.hidden = !this.page.isHost;
    host.querySelector("#chat-on").checked = this.options.chat;
    const spectators = host.querySelector("#chat-spectators");
    spectators.checked = this.options.spectators;
    spectators.disabled = !this.options.chat;
    host.querySelector("#chat-spectator-reactions").checked = this.options.spectator_reactions;
    for (const label of host.querySelectorAll("label")) {
      label.lastChild.textContent = t(SWITCHES[label.querySelector("input").id]);
    }
    this.updateBadge();
  }

  lineEl(line) {
    const mine = line.seat !== null && line.seat === this.page.seat;
    const who = line.seat === null ? h("span", { class: "chat-who spectator" }, t("chat.spectator"))
      : h("span", { class: "chat-who" }, nameEl(line.name ?? `#${line.seat}`));
    return h("li", { class: mine ? "chat-line own" : "chat-line", dataset: { seat: line.seat ?? "spectator", id: line.id } },
      who, h("span", { class: "chat-text" }, line.text));
  }

  /** Whether the panel can be seen now (the side panel on wide screens, or the sheet). */
  shown() {
    return this.panel.isConnected && this.panel.offsetParent !== null;
  }

  // --- on the table -----------------------------------------------------------------

  /** Put the panel, the phone's chat button and the live bubbles into a freshly drawn
   * table (TableView.render calls this before it gives the focus back). */
  attach(section) {
    const side = section.querySelector(".side");
    if (side) {
      side.prepend(this.tabs());
      side.classList.toggle("chat-tab", this.tab === "chat");
      if (!this.sheet) side.append(this.panel);
    }
    section.append(this.openButton());
    this.refresh();
    for (const [place, bubble] of this.bubbles) this.placeBubble(section, place, bubble, false);
  }

  /** Wide screens: the side panel's two tabs, the round's log and the chat. */
  tabs() {
    const tab = (name, label, extra) => h("button", {
      type: "button", role: "tab", class: "side-tab", id: `side-tab-${name}`, dataset: { focus: `side-tab-${name}` },
      "aria-selected": String(this.tab === name), onclick: () => this.showTab(name),
    }, label, extra);
    return h("div", { class: "side-tabs", role: "tablist" },
      tab("log", t("log.title")),
      tab("chat", t("chat.title"), h("span", { class: "unread", id: "chat-tab-unread", hidden: true })));
  }

  showTab(name) {
    this.tab = name;
    const side = this.page.table.el?.querySelector(".side");
    if (!side) return;
    side.classList.toggle("chat-tab", name === "chat");
    for (const button of side.querySelectorAll(".side-tab")) {
      button.setAttribute("aria-selected", String(button.id === `side-tab-${name}`));
    }
    if (name === "chat") {
      this.unread = 0;
      const list = this.panel.querySelector("#chat-lines");
      list.scrollTop = list.scrollHeight;
    }
    this.updateBadge();
  }

  openButton() {
    return h("button", {
      type: "button", class: "chat-open", id: "chat-open", dataset: { focus: "chat-open" },
      "aria-haspopup": "dialog", "aria-label": t("chat.open"), onclick: () => this.openSheet(),
    }, h("span", { class: "chat-open-icon", "aria-hidden": "true", html: SPEECH }),
    h("span", { class: "unread", id: "chat-unread", hidden: true }));
  }

  updateBadge() {
    for (const id of ["chat-unread", "chat-tab-unread"]) {
      const badge = document.getElementById(id);
      if (!badge) continue;
      badge.hidden = this.unread === 0;
      badge.textContent = this.unread > 9 ? "9+" : String(this.unread);
    }
    const button = document.getElementById("chat-open");
    button?.setAttribute("aria-label", this.unread ? tn("chat.unread", this.unread) : t("chat.open"));
  }

  /** Phones: the panel in a sheet (it goes back to the side panel when closed). */
  openSheet() {
    if (this.sheet) return;
    const dialog = h("dialog", { id: "chat-sheet", class: "sheet chat-sheet", "aria-labelledby": "chat-title" },
      h("div", { class: "sheet-body" },
        h("button", { type: "button", class: "ghost close", "aria-label": t("dialog.close"), onclick: () => dialog.close() }, "×"),
        this.panel));
    dialog.addEventListener("close", () => {
      this.sheet = null;
      dialog.remove();
      this.page.table.el?.querySelector(".side")?.append(this.panel);
      this.page.table.el?.querySelector("#chat-open")?.focus();
    });
    this.sheet = dialog;
    document.body.append(dialog);
    dialog.showModal();
    this.unread = 0;
    this.refresh();
    const list = this.panel.querySelector("#chat-lines");
    list.scrollTop = list.scrollHeight;
    (this.canChat() ? this.panel.querySelector("#chat-input") : dialog.querySelector(".close"))?.focus();
  }

  // --- bubbles ----------------------------------------------------------------------

  /** Show `make()` (a text or a node, made again at each drawing) at `seat`. */
  bubble(seat, make, kind) {
    const place = seat === null || seat === undefined ? "spectators" : `seat-${seat}`;
    const bubble = { make, kind, until: Date.now() + BUBBLE_MS };
    this.bubbles.set(place, bubble);
    const section = this.page.table.el;
    if (section?.isConnected) this.placeBubble(section, place, bubble, true);
    setTimeout(() => {
      if (this.bubbles.get(place) !== bubble) return;
      this.bubbles.delete(place);
      document.querySelector(`.bubble[data-place="${place}"]`)?.remove();
    }, BUBBLE_MS);
  }

  placeBubble(section, place, bubble, fresh) {
    if (bubble.until <= Date.now()) return;
    let host;
    if (place === "spectators") host = section.querySelector(".felt");
    else {
      const seat = Number(place.slice(5));
      host = seat === this.page.seat ? section.querySelector(".table > .mine")
        : section.querySelector(`.opponent[data-seat="${seat}"]`);
    }
    if (!host) return;
    host.querySelector(".bubble")?.remove();
    host.append(h("span", {
      class: `bubble ${bubble.kind} ${fresh ? "fresh" : ""}`, dataset: { place }, "aria-hidden": "true",
    }, bubble.make()));
  }
}

// One table's page (/g/<id>): joins or rejoins the seat, keeps the live connection, and
// shows the lobby, the table, the round summaries, the result and the replay (#replay).

import { showAnnouncement } from "./announcement.js";
import { api } from "./api.js";
import { Attention } from "./attention.js";
import { SeatAsk } from "./askseat.js";
import { ChatView } from "./chat.js";
import { noteAway } from "./away.js";
import { Connection, watchNetwork } from "./connection.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { renderJoin, renderLobby } from "./lobby.js";
import { offlineNotice, reachServer } from "./offline.js";
import { openRules } from "./rules.js";
import { ReplayView } from "./replay.js";
import { forgetOldHistories, forgetToken, saveToken, tokenFor } from "./seats.js";
import { renderResult } from "./summary.js";
import { TableView } from "./table.js";
import { noteArrival } from "./turnclock.js";
import { showError, toast } from "./toast.js";

export class GamePage {
  constructor(root, gameId) {
    this.root = root;
    this.gameId = gameId;
    this.token = tokenFor(gameId);
    this.info = null;
    this.me = null;
    this.state = null;
    // every finished round (round_end messages) and the result (game_end), as the
    // server sends them in welcome and live
    this.history = { rounds: [], end: null };
    this.shownRound = null; // the round whose summary just popped up
    this.readyRound = null; // the finished round after which this player said ready
    this.reviewRound = null; // a finished round looked at again (the Scores button)
    this.replay = new ReplayView(this);
    this.replayOpen = false;
    this.replayPushed = false; // the replay added a browser history entry
    this.rematch = null;
    this.closed = null;
    this.status = "connecting";
    // the move sent and not yet acknowledged: { id, version, action, resent }; the hand
    // is not playable meanwhile, and a move the connection lost is sent once again
    // when it is back (connection.js, docs/protocol.md "Lost signal")
    this.pending = null;
    // who is away (the last presence): { list, server_time, arrivedAt } (dropped.js)
    this.away = null;
    this.table = new TableView(this);
    this.connection = null;
    this.attention = new Attention(this); // sounds and hidden-tab notices of each message
    this.seatAsk = new SeatAsk(this); // late friends asking for a seat (askseat.js)
    this.chat = new ChatView(this); // the table's chat and reactions
  }

  async start() {
    try {
      this.info = await reachServer(
        () => api("GET", `/api/games/${encodeURIComponent(this.gameId)}`),
        () => this.root.replaceChildren(offlineNotice()),
      );
    } catch (err) {
      this.renderMissing(err);
      return;
    }
    forgetOldHistories();
    addEventListener("popstate", () => {
      const open = isReplayHash() && this.info.status === "finished";
      if (open === this.replayOpen) return;
      this.replayOpen = open;
      this.replayPushed = false;
      this.render();
    });
    if (isReplayHash()) {
      if (this.info.status === "finished") this.replayOpen = true;
      else history.replaceState(null, "", location.pathname + location.search);
    }
    const rulesButton = document.getElementById("rules-btn");
    rulesButton.hidden = false;
    rulesButton.onclick = () => openRules(this.info);
    if (!this.token && this.info.status === "lobby") {
      this.render();
      return;
    }
    this.connect();
  }

  connect() {
    this.connection?.close();
    this.connection = new Connection(this.gameId, this.token, {
      onMessage: (msg) => this.receive(msg),
      onStatus: (status) => this.setStatus(status),
    });
    watchNetwork(this.connection);
    this.connection.open();
  }

  async join(name) {
    const seat = await api("POST", `/api/games/${encodeURIComponent(this.gameId)}/seats`, {
      body: { name },
      token: this.token,
    });
    this.token = seat.token;
    saveToken(this.gameId, seat.token);
    this.connect();
  }

  setStatus(status) {
    const changed = status !== this.status;
    this.status = status;
    const el = document.getElementById("conn");
    el.hidden = false;
    el.className = `conn ${status}`;
    el.dataset.i18n = `conn.${status}`; // translated again with the page's static strings
    el.textContent = t(`conn.${status}`);
    document.body.dataset.conn = status;
    // the table says it cannot reach the server, and its hand is not playable meanwhile
    if (changed && this.state && this.info?.status !== "lobby") this.render();
  }

  receive(msg) {
    this.attention.receive(msg); // before this.state is replaced: it compares the two
    if (this.seatAsk.receive(msg)) return;
    if (this.chat.receive(msg)) return; // chat_history, chat_line, reaction, chat_options
    switch (msg.type) {
      case "announcement":
        showAnnouncement(msg);
        return;
      case "welcome":
        this.me = msg;
        this.sendAgain();
        this.logRound = null; // a new connection: the next state brings the whole round
        this.history = {
          rounds: [...(msg.results || [])].sort((a, b) => a.round - b.round),
          end: msg.end || null,
        };
        break;
      case "lobby":
        this.info = msg.game;
        break;
      case "presence": {
        // who is connected changed: the last lobby's seats, updated
        if (!this.info) return;
        const seats = this.info.seats.map((s) => ({
          ...s,
          connected: msg.connected.includes(s.position),
          stand_in: msg.stand_in.includes(s.position),
        }));
        this.info = { ...this.info, seats, spectators: msg.spectators };
        this.away = { list: msg.away || [], server_time: msg.server_time, arrivedAt: performance.now() };
        break;
      }
      case "state": {
        const view = msg.view;
        // The server sends only the new log entries (the whole round after hello or at
        // a new round): the round's log is kept here.
        if (this.logRound !== view.round) {
          this.logRound = view.round;
          this.log = [];
        }
        this.log = this.log.concat(msg.events);
        view.log = this.log;
        noteArrival(msg); // the turn timer counts down from here (turnclock.js)
        if (this.pending && msg.ack === this.pending.id) this.pending = null;
        this.state = msg;
        noteAway(this, view);
        if (this.shownRound !== null && view.round > this.shownRound) {
          // The next round is dealt: its summary closes, whoever said ready.
          this.shownRound = null;
          this.readyRound = null;
          this.render();
          if (!document.querySelector("dialog[open]")) this.table.focusHand();
          return;
        }
        if (betweenRounds(view) && this.seat !== null && this.shownRound === null && this.reviewRound === null
          && this.history.rounds.some((r) => r.round === view.round)) {
          this.shownRound = view.round; // back between rounds (a reload): the summary waits for ready
        }
        break;
      }
      case "round_end":
        if (!this.history.rounds.some((r) => r.round === msg.round)) {
          this.history.rounds.push(msg);
          this.history.rounds.sort((a, b) => a.round - b.round);
        }
        this.shownRound = msg.round;
        this.reviewRound = null;
        break;
      case "game_end":
        this.history.end = msg;
        break;
      case "rematch":
        this.rematch = msg;
        break;
      case "ack": // a move sent again that had been applied already: nothing more to do
        if (this.pending?.id !== msg.action_id) return;
        this.pending = null;
        break;
      case "error":
        if (this.pending && msg.action_id === this.pending.id) {
          const resent = this.pending.resent;
          this.pending = null;
          this.render();
          if (resent && msg.code === "stale_version") {
            // made before the signal went, and the game went on meanwhile: not played
            toast(t("move.dropped"), "error");
            return;
          }
        }
        if (["bad_token", "no_token", "seat_removed"].includes(msg.code) && !this.me) {
          if (msg.code === "seat_removed") toast(t("removed.text"), "error");
          forgetToken(this.gameId);
          this.token = null;
          this.connection.close();
          if (this.info?.status === "lobby") this.render();
          else this.connect();
          return;
        }
        // not_between_rounds: a ready that crossed the next round's deal; nothing to tell
        if (!["stale_version", "not_between_rounds"].includes(msg.code)) showError(msg);
        return;
      case "closed":
        if (msg.code === "seat_removed") {
          this.seatRemoved();
          return;
        }
        this.closed = msg;
        // too many connections from here or at this table: say so; no reconnect
        if (msg.code === "too_many_connections" && this.state) showError(msg);
        break;
      default:
        return;
    }
    this.render();
  }

  /** The host removed this player's seat (or it was left in another tab): say so,
   * forget its token, and go on watching the lobby, where a seat can be taken again. */
  seatRemoved() {
    toast(t("removed.text"), "error");
    forgetToken(this.gameId);
    this.token = null;
    this.me = null;
    this.connect();
    this.render();
  }

  /** Send a move; the answer is the next state with its `ack` (or an error toast).
   * Until then the move is pending: shown so, and no other move is made. */
  act(action) {
    if (this.pending) return false;
    const version = this.state?.version;
    const id = this.state ? this.connection?.act(version, action) : null;
    if (!id) {
      toast(t("conn.offline"), "error");
      return false;
    }
    this.pending = { id, version, action, resent: false };
    this.render();
    return true;
  }

  /** A new connection: a move that had no answer is sent once more, with its id and
   * the version it was made at. The server applies it if that is still the game's
   * version (and not twice: it knows the id), or refuses it (`stale_version`: the turn
   * passed meanwhile), which is said. */
  sendAgain() {
    const pending = this.pending;
    if (!pending) return;
    pending.resent = true;
    if (!this.connection.act(pending.version, pending.action, pending.id)) this.pending = null;
  }

  /** Tell the server this player is ready for the next round (once per round). */
  sayReady() {
    const round = this.shownRound;
    if (round === null || this.isReady(round)) return;
    if (!this.connection?.send({ type: "ready" })) {
      toast(t("conn.offline"), "error");
      return;
    }
    this.readyRound = round;
    this.render();
  }

  /** Whether this player said ready after finished round `round`. */
  isReady(round) {
    if (this.readyRound === round) return true;
    const state = this.state;
    return !!state && state.view.round === round && betweenRounds(state.view)
      && (state.ready || []).includes(this.seat);
  }

  get seat() {
    return this.me?.seat ?? null;
  }

  get isHost() {
    return this.seat !== null && this.info && this.seat === this.info.host;
  }

  closeSummary() {
    const reviewing = this.shownRound === null && this.reviewRound !== null;
    this.shownRound = null;
    this.reviewRound = null;
    this.render();
    if (reviewing) this.table.el?.querySelector("#scores-btn")?.focus();
    else this.table.focusHand();
  }

  /** Look again at the summary of a finished round (the last one by default). */
  openScores(round = null) {
    const rounds = this.history.rounds;
    if (!rounds.length) return;
    this.reviewRound = round ?? rounds[rounds.length - 1].round;
    this.render();
  }

  openReplay() {
    if (this.info?.status !== "finished") return;
    if (!isReplayHash()) {
      history.pushState(null, "", "#replay");
      this.replayPushed = true;
    }
    this.replayOpen = true;
    this.render();
  }

  closeReplay() {
    if (this.replayPushed) {
      this.replayPushed = false;
      history.back(); // popstate closes the replay
      return;
    }
    history.replaceState(null, "", location.pathname + location.search);
    this.replayOpen = false;
    this.render();
  }

  async startRematch() {
    try {
      const made = await api("POST", `/api/games/${encodeURIComponent(this.gameId)}/rematch`, {
        token: this.token,
      });
      this.followRematch(made);
    } catch (err) {
      showError(err);
    }
  }

  followRematch(made) {
    if (this.token) saveToken(made.game_id, this.token);
    location.assign(made.invite);
  }

  render() {
    const root = this.root;
    if (!this.info) return;
    this.seatAsk.render();
    document.body.dataset.view = this.info.status;
    if (this.closed?.code === "too_many_connections" && !this.state) {
      const retry = () => { this.closed = null; this.render(); this.connect(); };
      root.replaceChildren(h("section", { class: "panel notice", id: "too-many" }, h("h1", {}, t("closed.busy.title")),
        h("p", {}, t("closed.busy.text")),
        h("button", { class: "button primary", type: "button", id: "retry", onclick: retry }, t("closed.busy.retry"))));
      return;
    }
    if (this.closed && !this.state) {
      root.replaceChildren(h("section", { class: "panel notice" }, h("h1", {}, t("closed.title")), h("p", {}, t("closed.text")),
        h("a", { class: "button primary", href: "/" }, t("nav.home"))));
      return;
    }
    if (this.info.status === "lobby") {
      this.table.detach();
      if (!this.token) renderJoin(root, this);
      else renderLobby(root, this);
      return;
    }
    if (this.replayOpen && this.info.status === "finished") {
      renderResult(this, {});
      this.table.detach();
      document.body.dataset.view = "replay";
      this.replay.mount(root);
      return;
    }
    this.replay.detach();
    if (!this.state) {
      root.replaceChildren(h("p", { class: "loading" }, t("table.loading")));
      return;
    }
    this.table.render(root);
    const view = this.state.view;
    const find = (n) => this.history.rounds.find((r) => r.round === n) || null;
    // A finished game shows its result once game_end is known (it follows the last state).
    const end = view.finished ? this.history.end : null;
    let round = null;
    let review = false;
    if (end) round = find(view.round);
    else if (view.finished) round = null;
    else if (this.shownRound !== null) round = find(this.shownRound);
    else if (this.reviewRound !== null) {
      round = find(this.reviewRound);
      review = !!round;
    }
    renderResult(this, { round, end, review });
  }

  renderMissing(err) {
    this.root.replaceChildren(
      h("section", { class: "panel notice" },
        h("h1", {}, t("missing.title")),
        h("p", {}, err.code === "unknown_game" ? t("missing.text") : err.message),
        h("a", { class: "button primary", href: "/" }, t("nav.home"))),
    );
  }
}

/** The view of a finished round while the next one waits to be dealt. */
function betweenRounds(view) {
  return view.step === "over" && !view.finished;
}

function isReplayHash() {
  return location.hash.startsWith("#replay");
}

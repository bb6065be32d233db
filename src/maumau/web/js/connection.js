// The live connection to /ws/{id}: hello, moves, and a silent reconnect after drops.
//
// A phone in a tunnel keeps its socket open while nothing gets through, so the socket's
// state says nothing: the connection pings the server every PING_MS and counts itself
// lost when nothing at all came for SILENT_MS (any message counts, a pong at least),
// that is within SILENT_MS + TICK_MS of the cut (under 4 s). A browser slows the timers
// of a hidden tab, so only a visible page judges; when it becomes visible again it pings
// at once and judges from then. A lost connection is given up (not closed politely: a
// close would wait for the dead network) and opened again with backoff, and a new
// socket that is not welcomed within OPEN_MS is given up as well.
// docs/protocol.md, "Lost signal".

import { parseMessage } from "./shuffle.js";

const PING_MS = 1000;
const SILENT_MS = 3500;
const TICK_MS = 250;
const OPEN_MS = 6000;
// A `closed` with one of these codes is followed by a reconnect, with the usual backoff
// (the hello came too late: a stalled tab or network; the server is restarting); after
// any other code, such as too_many_connections, the connection stays closed until the
// page opens it again.
const RECONNECT_AFTER = new Set(["hello_timeout", "server_stopping"]);

export class Connection {
  /** onMessage(msg); onStatus("connecting" | "online" | "offline" | "closed") */
  constructor(gameId, token, { onMessage, onStatus }) {
    this.gameId = gameId;
    this.token = token;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.ws = null;
    this.retry = 0;
    this.stopped = false;
    this.counter = 0;
    this.timer = null;
    this.welcomed = false; // this socket was welcomed: moves may be sent
    this.heard = 0; // performance.now() when the server was last heard from
    this.pinged = 0; // ... and last pinged
  }

  open() {
    this.stopped = false;
    this.welcomed = false;
    this.onStatus(this.retry ? "offline" : "connecting");
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws/${encodeURIComponent(this.gameId)}`);
    this.ws = ws;
    this.heard = performance.now();
    this.keepAlive();
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: "hello", token: this.token || null }));
    };
    ws.onmessage = (event) => {
      if (this.ws !== ws) return; // a socket given up on
      this.heard = performance.now();
      let msg;
      try {
        msg = parseMessage(event.data);
      } catch {
        return;
      }
      if (msg.type === "welcome") {
        this.retry = 0;
        this.welcomed = true;
        this.onStatus("online");
      }
      if (msg.type === "closed") {
        if (RECONNECT_AFTER.has(msg.code)) return; // onclose reconnects
        this.stopped = true;
      }
      this.onMessage(msg);
    };
    ws.onclose = () => {
      clearInterval(this.timer);
      if (this.ws !== ws) return;
      if (this.stopped) {
        this.onStatus("closed");
        return;
      }
      this.reopenLater();
    };
  }

  reopenLater() {
    this.onStatus("offline");
    clearTimeout(this.retryTimer);
    const wait = Math.min(8000, 400 * 2 ** this.retry++);
    this.retryTimer = setTimeout(() => !this.stopped && this.open(), wait);
  }

  /** Ping the server, and give the socket up when it stays silent (see the top). */
  keepAlive() {
    clearInterval(this.timer);
    this.pinged = 0;
    this.timer = setInterval(() => this.check(), TICK_MS);
  }

  check() {
    const now = performance.now();
    if (document.visibilityState === "hidden") return; // slowed timers: judged on waking
    if (!this.welcomed) {
      if (now - this.heard > OPEN_MS) this.lost(); // no welcome: a dead network, too
      return;
    }
    if (now - this.pinged >= PING_MS) {
      this.pinged = now;
      this.send({ type: "ping" });
    }
    if (now - this.heard > SILENT_MS) this.lost();
  }

  /** The page became visible (a phone woke up): ping now and judge from now. */
  wake() {
    if (!this.ws) return;
    this.heard = performance.now();
    this.pinged = 0;
    this.check();
  }

  /** The connection is dead (silent, or the browser went offline): give the socket up
   * and open a new one with backoff. */
  lost() {
    const ws = this.ws;
    if (!ws || this.stopped) return;
    clearInterval(this.timer);
    this.ws = null;
    this.welcomed = false;
    ws.onopen = ws.onmessage = ws.onclose = null;
    try {
      ws.close();
    } catch {
      // closing a socket that never opened: nothing to do
    }
    this.reopenLater();
  }

  get online() {
    return this.welcomed && this.ws?.readyState === WebSocket.OPEN;
  }

  send(message) {
    if (this.ws?.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  /** Send a move made at state `version`; returns its action id, or null if offline.
   * `id`: the id of a move sent before, sent again (the server applies it once). */
  act(version, action, id = null) {
    if (!this.online) return null;
    id ??= `${Date.now().toString(36)}-${(this.counter++).toString(36)}`;
    return this.send({ type: "action", version, action_id: id, action }) ? id : null;
  }

  close() {
    this.stopped = true;
    clearInterval(this.timer);
    const ws = this.ws;
    this.ws = null; // its close is no news: a new connection may be opening already
    ws?.close();
  }
}

// Reconnect at once when the network comes back or the tab wakes up; give the socket up
// at once when the browser says it is offline; check it when a phone wakes up.
export function watchNetwork(connection) {
  const poke = () => {
    if (!connection.stopped && !connection.ws) {
      clearTimeout(connection.retryTimer);
      connection.open();
    } else if (!connection.stopped && connection.ws?.readyState === WebSocket.CLOSED) {
      clearTimeout(connection.retryTimer);
      connection.ws.onclose = null;
      connection.open();
    }
  };
  addEventListener("online", poke);
  addEventListener("offline", () => connection.lost());
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState !== "visible") return;
    poke();
    connection.wake();
  });
}

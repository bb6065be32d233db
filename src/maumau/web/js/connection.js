// The live connection to /ws/{id}: hello, moves, and a silent reconnect after drops.

import { parseMessage } from "./shuffle.js";

const PING_MS = 20000;
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
  }

  open() {
    this.stopped = false;
    this.onStatus(this.retry ? "offline" : "connecting");
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws/${encodeURIComponent(this.gameId)}`);
    this.ws = ws;
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: "hello", token: this.token || null }));
    };
    ws.onmessage = (event) => {
      let msg;
      try {
        msg = parseMessage(event.data);
      } catch {
        return;
      }
      if (msg.type === "welcome") {
        this.retry = 0;
        this.onStatus("online");
        this.keepAlive();
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
      this.onStatus("offline");
      const wait = Math.min(8000, 400 * 2 ** this.retry++);
      this.retryTimer = setTimeout(() => !this.stopped && this.open(), wait);
    };
  }

  keepAlive() {
    clearInterval(this.timer);
    this.timer = setInterval(() => this.send({ type: "ping" }), PING_MS);
  }

  get online() {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  send(message) {
    if (!this.online) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  /** Send a move made at state `version`; returns its action id, or null if offline. */
  act(version, action) {
    const id = `${Date.now().toString(36)}-${(this.counter++).toString(36)}`;
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

// Reconnect at once when the network comes back or the tab wakes up.
export function watchNetwork(connection) {
  const poke = () => {
    if (!connection.stopped && !connection.online && connection.ws?.readyState !== WebSocket.CONNECTING) {
      clearTimeout(connection.retryTimer);
      if (connection.ws) connection.ws.onclose = null;
      connection.open();
    }
  };
  addEventListener("online", poke);
  document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && poke());
}

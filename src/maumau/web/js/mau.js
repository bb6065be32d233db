// The Mau button's arm: the player's own call, made for one play only.
//
// The rules punish a forgotten call (docs/rules.md#calling-mau), so the call stays the
// player's act: it is never made for them. But a call can no longer be made by accident:
// the button is offered only when a call can be due with the next card (on the player's
// own turn, at two cards or one, with a card that can be played), and an arm lasts only
// for the state it was made in. A draw, a pass, another player's move or a new round is
// a new state and drops the arm. The arm survives a reload of the same state
// (sessionStorage).

const KEY = "maumau.mauArm.";

/** The word due when `hand` cards are held before the play: "mau" at two, "maumau" at one. */
export function dueWord(handSize) {
  return handSize <= 1 ? "maumau" : "mau";
}

/** Whether a call can be due with this seat's next play in `state`. */
export function callOffered(state, seat, rules) {
  if (!state || seat === null || rules?.mau_penalty === "off") return false;
  const view = state.view;
  if (view.to_move !== seat || !["play", "drawn"].includes(view.step)) return false;
  if (view.hand.length > 2) return false;
  return (state.legal || []).some((a) => a.play);
}

export class MauArm {
  constructor(gameId) {
    this.key = KEY + gameId;
    this.version = null; // the state version the arm was made in
    try {
      const kept = JSON.parse(sessionStorage.getItem(this.key) || "null");
      if (Number.isInteger(kept)) this.version = kept;
    } catch {
      this.version = null;
    }
  }

  /** Armed for this state (an arm made in an earlier state is gone). */
  armedFor(state) {
    if (this.version === null) return false;
    if (!state || state.version !== this.version) {
      this.clear();
      return false;
    }
    return true;
  }

  toggle(state) {
    if (this.armedFor(state)) this.clear();
    else this.set(state.version);
  }

  set(version) {
    this.version = version;
    try {
      sessionStorage.setItem(this.key, JSON.stringify(version));
    } catch {
      // no storage (a private window): the arm holds until a reload
    }
  }

  clear() {
    this.version = null;
    try {
      sessionStorage.removeItem(this.key);
    } catch {
      // no storage: nothing was kept
    }
  }

  /** The call to send with a play from `state`: the due word if armed, else none. */
  callFor(state) {
    return this.armedFor(state) ? dueWord(state.view.hand.length) : undefined;
  }
}

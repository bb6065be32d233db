// Which game event gives which cue: the one place that maps the server's messages
// (docs/protocol.md) to cue names. sound.js sounds the names it knows; attention.js turns
// "turn", "seven", "round_start" and "rematch" into notices while the tab is hidden.
//
// A state's new log entries: a card played "play" (and "mau" when it carried a call),
// cards drawn "draw", penalty cards "penalty". The state itself: "turn" when it became
// this seat's turn, "seven" instead when a Seven stack waits for it, "round_start" when
// the next round was dealt. `round_end` gives "round_end" (not when it ends the game),
// `game_end` "winner", `rematch` "rematch".
//
// A state after `hello` (a reload, a reconnect) brings the whole round so far: it gives
// only its own turn cue, never a burst for what happened before. The replay sounds the
// entries of a step forward the same way (entriesCues); a jump sounds nothing.

const ENTRY_CUES = [
  ["play", "play"],
  ["draw", "draw"],
  ["penalty", "penalty"],
];

/** Whether `view` waits for a move of `seat` (a player, during a round). */
function toMove(view, seat) {
  return seat !== null && view.to_move === seat && view.step !== "over";
}

/** The turn cue of a state: "seven" or "turn" when it became `seat`'s turn. */
function turnCue(before, view, seat) {
  const was = before && before.round === view.round && toMove(before, seat);
  if (!toMove(view, seat) || was) return [];
  return [view.pending > 0 ? "seven" : "turn"];
}

/** The cues of one log entry. */
export function entryCues(entry) {
  const cues = ENTRY_CUES.filter(([key]) => key in entry).map(([, cue]) => cue);
  if ("play" in entry && entry.call) cues.push("mau");
  return cues;
}

/** The cues of a list of log entries (a replay's step), each at most once. */
export function entriesCues(entries) {
  return [...new Set((entries || []).flatMap(entryCues))];
}

/**
 * The cue names of server message `msg`, in order, each at most once. `before` is the
 * last `state` message this connection had before it (null for the first one after
 * `hello`); `seat` is this connection's seat (null for a spectator).
 */
export function cuesOf(msg, before, seat) {
  switch (msg.type) {
    case "state": {
      const view = msg.view;
      if (!before) return turnCue(null, view, seat);
      const cues = [];
      if (view.round > before.view.round) cues.push("round_start");
      for (const entry of msg.events || []) cues.push(...entryCues(entry));
      cues.push(...turnCue(before.view, view, seat));
      return [...new Set(cues)];
    }
    case "round_end":
      // the state before it says whether this round ended the game: then "winner" alone
      return before?.view.finished ? [] : ["round_end"];
    case "game_end":
      return ["winner"];
    case "rematch":
      return ["rematch"];
    default:
      return [];
  }
}

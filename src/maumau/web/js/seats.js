// What this browser remembers: the seat token per table (secret, sent only in headers
// and in hello), the player's name, and the rules last chosen on the home form.

const TOKEN = "maumau.token.";
const OLD_HISTORY = "maumau.history.";
const NAME = "maumau.name";
const RULES = "maumau.home.rules";

export function tokenFor(gameId) {
  return localStorage.getItem(TOKEN + gameId);
}

export function saveToken(gameId, token) {
  localStorage.setItem(TOKEN + gameId, token);
}

export function forgetToken(gameId) {
  localStorage.removeItem(TOKEN + gameId);
}

/** Every table this browser holds a seat token for, as [gameId, token] pairs. */
export function savedSeats() {
  const seats = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (key?.startsWith(TOKEN)) seats.push([key.slice(TOKEN.length), localStorage.getItem(key)]);
  }
  return seats.sort(([a], [b]) => a.localeCompare(b));
}

export function savedName() {
  return localStorage.getItem(NAME) || "";
}

export function saveName(name) {
  localStorage.setItem(NAME, name);
}

/** Round histories were once kept here; the server now sends them in `welcome`. */
export function forgetOldHistories() {
  for (let i = localStorage.length - 1; i >= 0; i--) {
    const key = localStorage.key(i);
    if (key?.startsWith(OLD_HISTORY)) localStorage.removeItem(key);
  }
}

/** The home form's last choice: {preset, options, settings}, or null. */
export function savedRules() {
  try {
    const saved = JSON.parse(localStorage.getItem(RULES) || "null");
    return saved && typeof saved === "object" ? saved : null;
  } catch {
    return null;
  }
}

export function saveRules(rules) {
  localStorage.setItem(RULES, JSON.stringify(rules));
}

// --- "Play now" (playnow.js): the rules of the last table created here, and the
// computer players' level last chosen in a lobby --------------------------------------

const PLAYED = "maumau.home.played";
const BOT_LEVEL = "maumau.botLevel";

/** The last table's {preset, options, settings} as it was created, or null. */
export function savedPlayed() {
  try {
    const saved = JSON.parse(localStorage.getItem(PLAYED) || "null");
    return saved && typeof saved === "object" ? saved : null;
  } catch {
    return null;
  }
}

export function savePlayed(rules) {
  localStorage.setItem(PLAYED, JSON.stringify(rules));
}

export function savedBotLevel() {
  return localStorage.getItem(BOT_LEVEL);
}

export function saveBotLevel(level) {
  localStorage.setItem(BOT_LEVEL, level);
}

// What this browser remembers: the seat token per table (secret, sent only in headers
// and in hello) and the player's name.

const TOKEN = "maumau.token.";
const OLD_HISTORY = "maumau.history.";
const NAME = "maumau.name";

export function tokenFor(gameId) {
  return localStorage.getItem(TOKEN + gameId);
}

export function saveToken(gameId, token) {
  localStorage.setItem(TOKEN + gameId, token);
}

export function forgetToken(gameId) {
  localStorage.removeItem(TOKEN + gameId);
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

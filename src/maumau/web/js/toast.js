// Short messages at the bottom of the screen: refused moves, network trouble, copies.

import { has, t } from "./i18n.js";

let timer = null;

export function toast(text, kind = "info") {
  const el = document.getElementById("toast");
  el.textContent = text;
  el.className = `toast ${kind}`;
  el.hidden = false;
  clearTimeout(timer);
  timer = setTimeout(() => { el.hidden = true; }, 4000);
}

/** An API or protocol error in words: the translated code, else the server's message. */
export function showError(err) {
  const code = err?.code;
  const key = `error.${code}`;
  const known = code && has(key);
  toast(known ? t(key) : err?.message || String(err), "error");
}

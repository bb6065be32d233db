// Translations: /lang/<code>.json holds every UI and rules string of one language.

// The languages: the picker's in index.html, the one list of them (English first).
export const LANGUAGES = [...document.querySelectorAll("#lang-picker option")].map((o) => o.value);
const STORE_KEY = "maumau.lang";

let strings = {};
let english = {};
let current = "en";
const missing = new Set();
const listeners = [];

export function language() {
  return current;
}

export function preferredLanguage() {
  const stored = localStorage.getItem(STORE_KEY);
  if (LANGUAGES.includes(stored)) return stored;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const code = tag.toLowerCase().split("-")[0];
    if (code === "nb" || code === "no") continue;
    if (LANGUAGES.includes(code)) return code;
  }
  return "en";
}

async function fetchStrings(code) {
  const reply = await fetch(`/lang/${code}.json`);
  if (!reply.ok) throw new Error(`language ${code}: HTTP ${reply.status}`);
  return reply.json();
}

export async function setLanguage(code, remember = false) {
  if (!LANGUAGES.includes(code)) code = "en";
  if (!Object.keys(english).length) english = await fetchStrings("en");
  strings = code === "en" ? english : await fetchStrings(code);
  current = code;
  if (remember) localStorage.setItem(STORE_KEY, code);
  document.documentElement.lang = code;
  translateStatic();
  for (const listener of listeners) listener(code);
}

export function onLanguage(listener) {
  listeners.push(listener);
}

/** The string for `key` with {placeholders} filled in. */
export function t(key, params = {}) {
  let text = strings[key];
  if (text === undefined) {
    missing.add(key);
    document.documentElement.dataset.missingKeys = [...missing].join(" ");
    console.warn(`missing translation: ${current}/${key}`);
    text = english[key] ?? key;
  }
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? params[name] : `{${name}}`));
}

/** Whether the current language has `key` (for optional strings such as error codes). */
export function has(key) {
  return key in strings;
}

/** A counted string: `key.one` for 1, else `key.other`. */
export function tn(key, n, params = {}) {
  return t(`${key}.${n === 1 ? "one" : "other"}`, { n, ...params });
}

/** Fill the elements of index.html marked with data-i18n / data-i18n-aria. */
function translateStatic() {
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of document.querySelectorAll("[data-i18n-aria]")) {
    el.setAttribute("aria-label", t(el.dataset.i18nAria));
  }
  document.title = t("app.title");
}

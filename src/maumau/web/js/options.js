// The rule book's option keys (docs/rules.md#options) and the named presets, for the
// create form and the rules page.  They are the engine's: the server writes them from
// maumau.engine.options at start and serves them as /options.json (a file of the shell,
// so the installed app has them offline), read at start before the first page is drawn
// (fetchOptions, useOptions).  This client keeps only how they are shown: the labels and explanations
// in the language files ("opt.<key>", "opt.<key>.help", "opt.<key>.<value>",
// "preset.<name>"), and which options matter under which values (relevant()).

import { has } from "./i18n.js";

/** Every option: {key, kind ("flag", "choice" or "int"), values or min and max, default}. */
export const OPTIONS = [];
/** Every preset by name, in order: every option's value under it. */
export const PRESETS = {};

/** The options and presets as the server serves them. */
export async function fetchOptions() {
  const reply = await fetch("/options.json");
  if (!reply.ok) throw new Error(`options: HTTP ${reply.status}`);
  return reply.json();
}

/** Take the served options and presets (once, at start, with the language loaded);
 * refuse any it has no label for: an option the engine has that this client cannot show. */
export function useOptions(served) {
  const unlabelled = unlabelledKeys(served);
  if (unlabelled.length) throw new Error(`options without a label: ${unlabelled.join(" ")}`);
  OPTIONS.splice(0, OPTIONS.length, ...served.options);
  for (const preset of served.presets) PRESETS[preset.name] = preset.rules;
}

/** The label keys the served options and presets need that the language lacks. */
function unlabelledKeys(served) {
  const needed = [];
  for (const o of served.options) {
    needed.push(`opt.${o.key}`, `opt.${o.key}.help`);
    if (o.kind === "choice") needed.push(...o.values.map((v) => `opt.${o.key}.${v}`));
  }
  for (const preset of served.presets) needed.push(`preset.${preset.name}`, `preset.${preset.name}.help`);
  return needed.filter((key) => !has(key));
}

/** Every option's value under `preset` (the defaults for a preset this server lacks). */
export function presetValues(preset) {
  return { ...(PRESETS[preset] || Object.fromEntries(OPTIONS.map((o) => [o.key, o.default]))) };
}

/** Which options matter under these values (the others are shown greyed out). */
export function relevant(key, values) {
  const scored = values.scoring !== "single";
  if (key === "limit") return values.scoring === "penalty" || values.scoring === "reward";
  if (key === "deals") return values.scoring === "deals";
  if (["jack_value", "ace_value", "card_values"].includes(key)) return scored;
  if (key === "mau_penalty_cards") return values.mau_penalty !== "off";
  return true;
}

/** A value shown in words: "on", "off", "52 cards", "Penalty points"... */
export function valueKey(option, value) {
  if (option.kind === "flag") return value ? "opt.on" : "opt.off";
  if (option.kind === "choice") return `opt.${option.key}.${value}`;
  return null;
}

// The rule book's option keys (docs/rules.md#options) and the named presets, for the
// create form and the rules page.  Labels and explanations are in the language files
// ("opt.<key>", "opt.<key>.help", "opt.<key>.<value>").

export const OPTIONS = [
  { key: "deck", kind: "choice", values: [52, 32], def: 52 },
  { key: "hand_size", kind: "int", min: 3, max: 10, def: 5 },
  { key: "draw_when_able", kind: "flag", def: true },
  { key: "seven_draw", kind: "choice", values: [2, 3], def: 2 },
  { key: "seven_stacking", kind: "flag", def: true },
  { key: "eight_skips", kind: "flag", def: true },
  { key: "nine_reverses", kind: "flag", def: false },
  { key: "ace_skips", kind: "flag", def: false },
  { key: "jack_on_jack", kind: "flag", def: false },
  { key: "mau_penalty", kind: "choice", values: ["auto", "catch", "off"], def: "auto" },
  { key: "mau_penalty_cards", kind: "int", min: 1, max: 5, def: 2 },
  { key: "scoring", kind: "choice", values: ["single", "penalty", "deals", "reward"], def: "single" },
  { key: "limit", kind: "limit", min: 50, max: 1000, def: 100 },
  { key: "deals", kind: "int", min: 1, max: 50, def: 8 },
  { key: "jack_value", kind: "int", min: 0, max: 50, def: 20 },
  { key: "ace_value", kind: "int", min: 0, max: 50, def: 11 },
  { key: "card_values", kind: "choice", values: ["face", "traditional"], def: "face" },
];

export const PRESETS = {
  standard: {},
  "penalty-100": { scoring: "penalty", limit: 100 },
  "penalty-150": { scoring: "penalty", limit: 150 },
  traditional: { deck: 32, nine_reverses: true, card_values: "traditional", scoring: "penalty", limit: 100 },
  gamerules: {
    deck: 32,
    nine_reverses: true,
    ace_value: 10,
    mau_penalty: "catch",
    scoring: "reward",
    limit: 150,
  },
};

/** Every option's value under `preset` (limit resolved as the engine does). */
export function presetValues(preset) {
  const values = Object.fromEntries(OPTIONS.map((o) => [o.key, o.def]));
  Object.assign(values, PRESETS[preset] || {});
  if (!("limit" in (PRESETS[preset] || {}))) values.limit = values.scoring === "reward" ? 150 : 100;
  return values;
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

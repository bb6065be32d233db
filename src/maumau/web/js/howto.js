// "How to play" on the home page: the rules picked on the form, explained in sentences
// before a table exists, in the rules dialog of rules.js (with its options table).

import { h } from "./dom.js";
import { has, t, tn } from "./i18n.js";
import { OPTIONS } from "./options.js";
import { openRules } from "./rules.js";

/** The rules in play under `rules` (every option key), one sentence each. */
export function ruleSentences(rules) {
  const lines = [t("howto.goal"), t("howto.deal", { n: rules.hand_size, deck: rules.deck })];
  lines.push(rules.draw_when_able ? t("howto.draw.any") : t("howto.draw.stuck"));
  lines.push(t("howto.seven", { n: rules.seven_draw }) + (rules.seven_stacking ? ` ${t("howto.seven.stack")}` : ""));
  // an action card switched on by an option of its own (Eights skip, Nines reverse...):
  // its sentence is "howto.<key>", in the engine's order of the options
  for (const option of OPTIONS) {
    if (option.kind === "flag" && rules[option.key] && has(`howto.${option.key}`)) lines.push(t(`howto.${option.key}`));
  }
  lines.push(rules.jack_on_jack ? t("howto.jack.on_jack") : t("howto.jack"));
  const cards = rules.mau_penalty_cards;
  if (rules.mau_penalty === "auto") lines.push(t("howto.mau.call") + " " + tn("howto.mau.auto", cards));
  else if (rules.mau_penalty === "catch") lines.push(t("howto.mau.call") + " " + tn("howto.mau.catch", cards));
  else lines.push(t("howto.mau.off"));
  if (rules.scoring === "single") lines.push(t("howto.score.single"));
  else if (rules.scoring === "penalty") lines.push(t("howto.score.penalty", { limit: rules.limit }));
  else if (rules.scoring === "deals") lines.push(t("howto.score.deals", { n: rules.deals }));
  else lines.push(t("howto.score.reward", { limit: rules.limit }));
  if (rules.scoring !== "single") {
    const values = { jack: rules.jack_value, ace: rules.ace_value, low: rules.deck === 32 ? 7 : 2 };
    lines.push(rules.card_values === "traditional" ? t("howto.values.traditional", values) : t("howto.values.face", values));
  }
  return lines;
}

/** Open the rules dialog for the home form's rules (`preset` null: edited by hand). */
export function openHowTo(rules, preset) {
  openRules({ rules, options: preset ? { preset } : {} }, {
    title: t("howto.title"),
    lead: [
      h("p", { class: "help" }, t("howto.lead")),
      h("ul", { class: "howto-list", id: "howto-rules" }, ruleSentences(rules).map((line) => h("li", {}, line))),
    ],
    parts: [],
    optionsTitle: t("howto.options"),
  });
}

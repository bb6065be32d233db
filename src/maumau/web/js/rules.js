// The rules of this table: a short list in the lobby and a full page in a dialog.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { OPTIONS, relevant, valueKey } from "./options.js";

function valueText(option, value) {
  const key = valueKey(option, value);
  return key ? t(key) : String(value);
}

function presetName(info) {
  const preset = info.options?.preset;
  return preset ? t(`preset.${preset}`) : t("rules.custom");
}

/** The options that shape play and scoring, as a compact definition list. */
export function ruleSummary(info) {
  const rules = info.rules;
  const shown = OPTIONS.filter((o) => relevant(o.key, rules));
  return h("div", {},
    h("p", { class: "preset-name" }, h("strong", {}, presetName(info)), " — ", t(`opt.scoring.${rules.scoring}.help`)),
    h("dl", { class: "rule-list" },
      shown.map((o) => [h("dt", {}, t(`opt.${o.key}`)), h("dd", {}, valueText(o, rules[o.key]))])),
  );
}

/** The rules dialog; `extra` (all optional) puts a title of its own, a block after the
 * preset's name, only the given parts of the rule book, and its own heading over the
 * options table (the home page's "How to play", before a table exists). */
export function openRules(info, extra = {}) {
  const dialog = document.getElementById("rules-dialog");
  const rules = info.rules;
  const close = h("button", { class: "ghost close", type: "button", onclick: () => dialog.close(), "aria-label": t("dialog.close") }, "×");
  dialog.replaceChildren(
    h("div", { class: "sheet-body" },
      close,
      h("h1", {}, extra.title ?? t("rules.title")),
      h("p", { class: "preset-name" }, h("strong", {}, presetName(info))),
      extra.lead ?? null,
      (extra.parts ?? ["goal", "turn", "actions", "mau", "end"]).map((part) =>
        h("section", {}, h("h2", {}, t(`rules.${part}.title`)), h("p", {}, t(`rules.${part}`)),
          // where a forgotten or false call is punished: this table's mau_penalty
          part === "mau" ? h("p", { class: "mau-penalty" }, t(`opt.mau_penalty.${rules.mau_penalty}.help`)) : null)),
      h("h2", {}, extra.optionsTitle ?? t("rules.options")),
      h("table", { class: "rules-table" },
        h("tbody", {},
          OPTIONS.filter((o) => relevant(o.key, rules)).map((o) =>
            h("tr", {},
              h("th", { scope: "row" }, t(`opt.${o.key}`)),
              h("td", { class: "value" }, valueText(o, rules[o.key])),
              h("td", {}, t(`opt.${o.key}.help`)))))),
      h("p", { class: "help" }, t(`opt.scoring.${rules.scoring}.help`)),
    ),
  );
  dialog.showModal();
  close.focus();
}

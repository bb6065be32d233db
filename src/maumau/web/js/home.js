// The home page: pick a preset (or every option by hand) and the table settings, then
// create the table; the creator takes seat 0 and goes to the lobby.

import { api } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { nameError, nameMessage } from "./names.js";
import { OPTIONS, PRESETS, presetValues, relevant } from "./options.js";
import { saveName, saveToken, savedName } from "./seats.js";

const SETTINGS = [
  { key: "grace_seconds", def: 30, min: 0, max: 3600, nullable: true },
  { key: "turn_seconds", def: null, min: 5, max: 3600, nullable: true },
  { key: "bot_delay_ms", def: 900, min: 0, max: 10000 },
  // between rounds: seconds until the next round is dealt unless everyone is ready sooner
  { key: "next_round_seconds", def: 15, choices: [0, 10, 15, 30, 60] },
];

export function renderHome(root, { showError }) {
  let preset = "penalty-100";
  let values = presetValues(preset);

  const name = h("input", {
    id: "player-name", name: "name", required: true, maxlength: 32, autocomplete: "nickname",
    value: savedName(), placeholder: t("home.name_placeholder"),
  });
  const nameLine = nameMessage(name);

  const presetList = h("div", { class: "presets", role: "radiogroup", "aria-labelledby": "preset-title" },
    Object.keys(PRESETS).map((key) =>
      h("label", { class: "preset" },
        h("input", {
          type: "radio", name: "preset", value: key, checked: key === preset,
          onchange: () => { preset = key; values = presetValues(key); fillOptions(); },
        }),
        h("span", { class: "preset-body" },
          h("strong", {}, t(`preset.${key}`)),
          h("small", {}, t(`preset.${key}.help`)),
        ),
      ),
    ),
  );

  const optionRows = h("div", { class: "option-grid" });
  function fillOptions() {
    optionRows.replaceChildren(...OPTIONS.map((o) => optionRow(o)));
  }
  function changed(key, value) {
    values[key] = value;
    if (key === "scoring" && value === "reward" && values.limit === 100) values.limit = 150;
    fillOptions();
    document.getElementById(`opt-${key}`)?.focus();
  }
  function optionRow(o) {
    const id = `opt-${o.key}`;
    let control;
    if (o.kind === "flag") {
      control = h("input", { id, type: "checkbox", checked: values[o.key], onchange: (e) => changed(o.key, e.target.checked) });
    } else if (o.kind === "choice") {
      control = h("select", { id, onchange: (e) => changed(o.key, o.values[e.target.selectedIndex]) },
        o.values.map((v) => h("option", { selected: v === values[o.key] }, t(`opt.${o.key}.${v}`))));
    } else if (o.kind === "limit") {
      control = limitControl(id, o);
    } else {
      control = h("input", {
        id, type: "number", min: o.min, max: o.max, value: values[o.key], required: true,
        onchange: (e) => { values[o.key] = Number(e.target.value); },
      });
    }
    return h("div", { class: `option ${relevant(o.key, values) ? "" : "idle"}`, dataset: { key: o.key } },
      h("label", { for: id }, t(`opt.${o.key}`)),
      control,
      h("p", { class: "help", id: `${id}-help` }, t(`opt.${o.key}.help`)),
    );
  }
  function limitControl(id, o) {
    const custom = ![100, 150].includes(values.limit);
    const number = h("input", {
      id: `${id}-custom`, type: "number", min: o.min, max: o.max, value: values.limit,
      "aria-label": t("home.limit_other"), hidden: !custom,
      onchange: (e) => { values.limit = Number(e.target.value); },
    });
    const pick = (v) => h("label", { class: "chip" },
      h("input", {
        type: "radio", name: "limit", id: v === 100 ? id : undefined, checked: custom ? v === "other" : values.limit === v,
        onchange: () => {
          if (v === "other") { number.hidden = false; number.focus(); } else { values.limit = v; number.hidden = true; }
        },
      }),
      v === "other" ? t("home.limit_other") : String(v));
    return h("span", { class: "limit-pick" }, pick(100), pick(150), pick("other"), number);
  }
  fillOptions();

  const settingRows = SETTINGS.map((s) => {
    const id = `set-${s.key}`;
    const input = s.choices
      ? h("select", { id, "aria-describedby": `${id}-help` },
        s.choices.map((v) => h("option", { value: String(v), selected: v === s.def },
          v === 0 ? t(`set.${s.key}.none`) : t("set.seconds", { n: v }))))
      : h("input", {
        id, type: "number", min: s.min, max: s.max, step: s.key === "bot_delay_ms" ? 50 : 1,
        value: s.def ?? "", placeholder: s.nullable ? t(`set.${s.key}.none`) : undefined,
        "aria-describedby": `${id}-help`,
      });
    return h("div", { class: "option" },
      h("label", { for: id }, t(`set.${s.key}`)), input,
      h("p", { class: "help", id: `${id}-help` }, t(`set.${s.key}.help`)));
  });

  async function submit(event) {
    event.preventDefault();
    const player = name.value.trim();
    if (!player) {
      nameLine.show([t("name.rule.blank")]);
      return;
    }
    saveName(player);
    const base = presetValues(preset);
    const options = {};
    for (const o of OPTIONS) if (values[o.key] !== base[o.key]) options[o.key] = values[o.key];
    const settings = {};
    for (const s of SETTINGS) {
      const raw = document.getElementById(`set-${s.key}`).value.trim();
      settings[s.key] = raw === "" ? (s.nullable ? null : s.def) : Number(raw);
    }
    createButton.disabled = true;
    try {
      const seat = await api("POST", "/api/games", { body: { name: player, preset, options, settings } });
      saveToken(seat.game_id, seat.token);
      location.assign(seat.invite);
    } catch (err) {
      const why = nameError(err, player);
      if (why) nameLine.show(why);
      else showError(err);
      createButton.disabled = false;
    }
  }

  const createButton = h("button", { class: "primary big", type: "submit", id: "create" }, t("home.create"));
  root.replaceChildren(
    h("section", { class: "home" },
      h("div", { class: "hero" },
        h("h1", {}, t("home.title")),
        h("p", { class: "lead" }, t("home.lead")),
      ),
      h("form", { class: "panel create", onsubmit: submit },
        h("div", { class: "field" }, h("label", { for: "player-name" }, t("home.your_name")), name, nameLine.line),
        h("h2", { id: "preset-title" }, t("home.presets")),
        presetList,
        h("details", { class: "more" },
          h("summary", {}, t("home.options")),
          h("p", { class: "help" }, t("home.options_help")),
          optionRows,
        ),
        h("details", { class: "more" },
          h("summary", {}, t("home.settings")),
          h("div", { class: "option-grid" }, settingRows),
        ),
        createButton,
      ),
    ),
  );
}

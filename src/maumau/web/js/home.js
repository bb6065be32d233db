// The home page: pick a preset (or every option by hand) and the table settings, then
// create the table; the creator takes seat 0 and goes to the lobby.  The form remembers
// the last choice (seats.js); a preset change that replaces edits offers an Undo; "How to
// play" explains the chosen rules; the player's open tables are listed above the form.

import { api } from "./api.js";
import { h } from "./dom.js";
import { openHowTo } from "./howto.js";
import { t } from "./i18n.js";
import { myTables } from "./mytables.js";
import { nameError, nameMessage } from "./names.js";
import { OPTIONS, PRESETS, presetValues, relevant } from "./options.js";
import { playNowBlock } from "./playnow.js";
import { saveName, savePlayed, saveRules, saveToken, savedName, savedRules } from "./seats.js";

const SETTINGS = [
  { key: "grace_seconds", def: 30, min: 0, max: 3600, nullable: true },
  { key: "turn_seconds", def: null, min: 5, max: 3600, nullable: true },
  { key: "bot_delay_ms", def: 900, min: 0, max: 10000 },
  // between rounds: seconds until the next round is dealt unless everyone is ready sooner
  { key: "next_round_seconds", def: 15, choices: [0, 10, 15, 30, 60] },
];
const DEFAULT_PRESET = "penalty-100";

// the name typed but not yet used, kept when the page is drawn again (a language change)
let typedName = null;

/** A saved option value, if it is one the form can show. */
function valid(o, value) {
  if (o.kind === "flag") return typeof value === "boolean";
  if (o.kind === "choice") return o.values.includes(value);
  return Number.isInteger(value) && value >= o.min && value <= o.max;
}

/** The last choice of the form (or the default preset): preset, values, settings. */
function lastChoice() {
  const saved = savedRules() || {};
  const preset = saved.preset in PRESETS ? saved.preset : DEFAULT_PRESET;
  const values = presetValues(preset);
  for (const o of OPTIONS) if (valid(o, saved.options?.[o.key])) values[o.key] = saved.options[o.key];
  const settings = {};
  for (const s of SETTINGS) {
    const raw = saved.settings?.[s.key];
    settings[s.key] = typeof raw === "string" ? raw : String(s.def ?? "");
  }
  return { preset, values, settings };
}

/** The options whose values differ from the preset's. */
function edits(preset, values) {
  const base = presetValues(preset);
  return Object.fromEntries(OPTIONS.filter((o) => values[o.key] !== base[o.key]).map((o) => [o.key, values[o.key]]));
}

export function renderHome(root, { showError }) {
  const choice = lastChoice();
  let preset = choice.preset;
  let values = choice.values;

  const name = h("input", {
    id: "player-name", name: "name", required: true, maxlength: 32, autocomplete: "nickname",
    value: typedName ?? savedName(), placeholder: t("home.name_placeholder"),
    oninput: (e) => { typedName = e.target.value; },
  });
  const nameLine = nameMessage(name);

  function remember() {
    const settings = {};
    for (const s of SETTINGS) settings[s.key] = document.getElementById(`set-${s.key}`)?.value ?? choice.settings[s.key];
    saveRules({ preset, options: edits(preset, values), settings });
  }

  // Undo of a preset change that replaced edits: the preset and values before it.
  const undoText = h("span", {});
  let undone = null;
  const undoButton = h("button", { class: "small", type: "button", id: "undo-preset", onclick: () => undo() }, t("home.undo"));
  const undoNote = h("div", { class: "undo-note", id: "preset-undo", role: "status", hidden: true }, undoText, undoButton);
  function pickPreset(key) {
    const before = { preset, values: { ...values } };
    const changed = Object.keys(edits(preset, values));
    preset = key;
    values = presetValues(key);
    fillOptions();
    remember();
    undone = changed.length ? { ...before, focus: changed[0] } : null;
    undoText.textContent = changed.length ? `${t("home.replaced", { preset: t(`preset.${before.preset}`) })} ` : "";
    undoNote.hidden = !undone;
  }
  function undo() {
    if (!undone) return;
    ({ preset, values } = undone);
    for (const radio of presetList.querySelectorAll("input")) radio.checked = radio.value === preset;
    fillOptions();
    remember();
    undoNote.hidden = true;
    optionsBox.open = true;
    document.getElementById(`opt-${undone.focus}`)?.focus();
    undone = null;
  }

  const presetList = h("div", { class: "presets", role: "radiogroup", "aria-labelledby": "preset-title" },
    Object.keys(PRESETS).map((key) =>
      h("label", { class: "preset" },
        h("input", {
          type: "radio", name: "preset", value: key, checked: key === preset,
          onchange: () => pickPreset(key),
        }),
        h("span", { class: "preset-body" },
          h("strong", {}, t(`preset.${key}`)),
          h("small", {}, t(`preset.${key}.help`)),
        ),
      ),
    ),
  );
  const howto = h("button", {
    class: "ghost small", type: "button", id: "howto",
    onclick: () => openHowTo({ ...values }, Object.keys(edits(preset, values)).length ? null : preset),
  }, t("howto.button"));

  const optionRows = h("div", { class: "option-grid" });
  function fillOptions() {
    optionRows.replaceChildren(...OPTIONS.map((o) => optionRow(o)));
  }
  function changed(key, value) {
    values[key] = value;
    undone = null; // a new edit: the notice's Undo would throw it away
    undoNote.hidden = true;
    if (key === "scoring" && value === "reward" && values.limit === 100) values.limit = 150;
    fillOptions();
    remember();
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
    } else if (o.key === "limit") {
      control = limitControl(id, o);
    } else {
      control = h("input", {
        id, type: "number", min: o.min, max: o.max, value: values[o.key], required: true,
        onchange: (e) => { values[o.key] = Number(e.target.value); remember(); },
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
      onchange: (e) => { values.limit = Number(e.target.value); remember(); },
    });
    const pick = (v) => h("label", { class: "chip" },
      h("input", {
        type: "radio", name: "limit", id: v === 100 ? id : undefined, checked: custom ? v === "other" : values.limit === v,
        onchange: () => {
          if (v === "other") { number.hidden = false; number.focus(); } else { values.limit = v; number.hidden = true; remember(); }
        },
      }),
      v === "other" ? t("home.limit_other") : String(v));
    return h("span", { class: "limit-pick" }, pick(100), pick(150), pick("other"), number);
  }
  fillOptions();
  const optionsBox = h("details", { class: "more" },
    h("summary", {}, t("home.options")),
    h("p", { class: "help" }, t("home.options_help")),
    optionRows,
  );

  const settingRows = SETTINGS.map((s) => {
    const id = `set-${s.key}`;
    const input = s.choices
      ? h("select", { id, "aria-describedby": `${id}-help`, onchange: remember },
        s.choices.map((v) => h("option", { value: String(v), selected: String(v) === choice.settings[s.key] },
          v === 0 ? t(`set.${s.key}.none`) : t("set.seconds", { n: v }))))
      : h("input", {
        id, type: "number", min: s.min, max: s.max, step: s.key === "bot_delay_ms" ? 50 : 1,
        value: choice.settings[s.key], placeholder: s.nullable ? t(`set.${s.key}.none`) : undefined,
        class: s.nullable ? "optional" : undefined,
        "aria-describedby": `${id}-help`, oninput: remember,
      });
    return h("div", { class: "option" },
      h("label", { for: id }, t(`set.${s.key}`)), input,
      h("p", { class: "help", id: `${id}-help` }, t(`set.${s.key}.help`)));
  });

  // research data: the host's choice for this table only, off each time (never remembered)
  const research = h("input", {
    id: "set-research_export", type: "checkbox", "aria-describedby": "set-research_export-help",
  });
  const researchRow = h("div", { class: "option" },
    h("label", { for: "set-research_export" }, research, " ", t("set.research_export")),
    h("p", { class: "help", id: "set-research_export-help" }, t("set.research_export.help")));

  async function submit(event) {
    event.preventDefault();
    const player = name.value.trim();
    if (!player) {
      nameLine.show([t("name.rule.blank")]);
      return;
    }
    saveName(player);
    typedName = null;
    remember();
    const base = presetValues(preset);
    const options = {};
    for (const o of OPTIONS) if (values[o.key] !== base[o.key]) options[o.key] = values[o.key];
    const settings = {};
    for (const s of SETTINGS) {
      const raw = document.getElementById(`set-${s.key}`).value.trim();
      settings[s.key] = raw === "" ? (s.nullable ? null : s.def) : Number(raw);
    }
    const shared = research.checked; // (not saved for "Play now": each table opts in itself)
    createButton.disabled = true;
    try {
      const body = { name: player, preset, options, settings: { ...settings, research_export: shared } };
      const seat = await api("POST", "/api/games", { body });
      saveToken(seat.game_id, seat.token);
      savePlayed({ preset, options, settings }); // what "Play now" plays with next time
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
      playNowBlock({ name, nameLine, settingKeys: SETTINGS.map((s) => s.key) }),
      myTables(),
      h("form", { class: "panel create", onsubmit: submit },
        h("div", { class: "field" }, h("label", { for: "player-name" }, t("home.your_name")), name, nameLine.line),
        h("div", { class: "preset-head" }, h("h2", { id: "preset-title" }, t("home.presets")), howto),
        presetList,
        undoNote,
        optionsBox,
        h("details", { class: "more" },
          h("summary", {}, t("home.settings")),
          h("div", { class: "option-grid" }, settingRows, researchRow),
        ),
        createButton,
      ),
    ),
  );
}

// Quick reactions (docs/protocol.md, "react"): the keys the server knows, each drawn as a
// small picture of this project's own (SVG: no emoji font needed) or a short phrase in
// the page's language, and the small row of buttons that sends them.

import { h } from "./dom.js";
import { t } from "./i18n.js";

const FACE = '<circle cx="12" cy="12" r="10" fill="#f7c948"/>';
const INK = 'stroke="#5a3b00" stroke-width="1.7" fill="none" stroke-linecap="round"';
/** The reactions drawn as a picture (the rest are phrases); their names are translated. */
const ICONS = {
  thumbs: '<rect x="2.5" y="10" width="4" height="10" rx="1" fill="#4aa3f0"/>'
    + '<path d="M8 10.5 11.8 3.6c1.4 0 2.4 1.1 2.2 2.4L13.4 9H19c1.2 0 2.1 1 1.9 2.2l-1.3 7A2.2 2.2 0 0 1 17.4 20H8z" fill="#f7c948"/>',
  laugh: `${FACE}<path d="M6.8 10q1.6-2.2 3.2 0M14 10q1.6-2.2 3.2 0" ${INK}/>`
    + '<path d="M6.5 13h11a5.5 5.5 0 0 1-11 0z" fill="#5a3b00"/>',
  cry: `${FACE}<circle cx="8.5" cy="10" r="1.3" fill="#5a3b00"/><circle cx="15.5" cy="10" r="1.3" fill="#5a3b00"/>`
    + `<path d="M8 17.2q4-3.6 8 0" ${INK}/><path d="M6.6 12.2q-2 3.2 0 4.4 2-1.2 0-4.4z" fill="#4aa3f0"/>`,
  fire: '<path d="M12 2c1 3.5 5.8 6 5.8 11.2a5.8 5.8 0 0 1-11.6 0c0-2.6 1.5-4.2 2.6-5.2.2 1.8 1 2.9 2 3.3C10.4 8.5 11 5 12 2z" fill="#f2762e"/>'
    + '<path d="M12 12.3c1.3 1.4 2.6 2.4 2.6 4.2a2.6 2.6 0 0 1-5.2 0c0-1.5 1.3-2.7 2.6-4.2z" fill="#f7c948"/>',
  star: '<path d="M12 2.5l2.9 6 6.6.9-4.8 4.6 1.2 6.5L12 17.4l-5.9 3.1 1.2-6.5L2.5 9.4l6.6-.9z" fill="#f2c14e" stroke="#8f6a16" stroke-width="0.8"/>',
  heart: '<path d="M12 20.5s-7.6-4.6-9.3-9.3C1.6 8 3.5 4.6 6.9 4.6c2 0 3.4 1.1 5.1 3 1.7-1.9 3.1-3 5.1-3 3.4 0 5.3 3.4 4.2 6.6C19.6 15.9 12 20.5 12 20.5z" fill="#d12d3f"/>',
};
/** Every key of the server's REACTIONS (maumau/server/live/chat.py), phrases first. */
export const REACTIONS = ["nice", "ouch", "wow", "gg", "oops", "hurry", ...Object.keys(ICONS)];

/** What a reaction shows: its picture (named for screen readers), or its phrase. */
export function reactionNode(key) {
  const icon = ICONS[key];
  if (!icon) return t(`react.${key}`);
  return h("span", { class: "react-icon", role: "img", "aria-label": t(`react.${key}`), dataset: { icon: key },
    html: `<svg viewBox="0 0 24 24" aria-hidden="true">${icon}</svg>` });
}

/** The row of reaction buttons; `send(key)` sends one. */
export function reactionRow(send) {
  return h("div", { class: "reactions", role: "group", "aria-label": t("react.title") },
    REACTIONS.map((key) => {
      const icon = key in ICONS;
      return h("button", {
        type: "button", class: icon ? "reaction icon" : "reaction", dataset: { reaction: key },
        title: t(`react.${key}`), "aria-label": t(`react.${key}`), onclick: () => send(key),
      }, reactionNode(key));
    }));
}

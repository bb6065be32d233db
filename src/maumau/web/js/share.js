// The Web Share button beside the invite link: the phone's own share sheet (messages,
// chat apps). Only where the browser has navigator.share; it shares the invite link,
// which holds no token.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** The share button for the invite `url`, or null where the browser cannot share. */
export function shareButton(url) {
  if (typeof navigator.share !== "function") return null;
  const data = { title: t("share.title"), text: t("share.text"), url };
  if (typeof navigator.canShare === "function" && !navigator.canShare(data)) return null;
  return h("button", {
    class: "share-invite", type: "button", id: "share-invite",
    onclick: () => navigator.share(data).catch(() => {}), // dismissed: nothing to say
  }, t("share.button"));
}

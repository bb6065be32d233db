// Why a card of the hand cannot be played now, in words (docs/rules.md#a-turn and
// docs/rules.md#action-cards): said when a player taps a card that is not lifted.

import { cardName, rankOf, suitOf } from "./cards.js";
import { t } from "./i18n.js";
import { shownName } from "./names.js";

/** The reason `code` cannot be played from `state` by `seat` (a string). */
export function whyNot(code, state, seat, rules) {
  const view = state.view;
  if (view.step === "over") return t("why.round_over");
  if (view.step === "wait") return t("why.wait");
  if (view.to_move !== seat) return t("why.not_your_turn", { name: shownName(view.players[view.to_move] ?? "") });
  if (view.step === "drawn") return t("why.drawn", { card: cardName(view.drawn) });
  if (view.pending) return t("why.pending", { n: view.pending });
  const top = view.top;
  if (rankOf(top) === "J" && rankOf(code) === "J" && !rules?.jack_on_jack) return t("why.jack_on_jack");
  if (rankOf(top) === "J" && view.named_suit) {
    return t("why.named", { suit: t(`suit.name.${view.named_suit}`) });
  }
  if (rankOf(top) === "J") return t("why.jack_on_jack");
  if (suitOf(code) !== suitOf(top) && rankOf(code) !== rankOf(top)) {
    return t("why.no_match", { card: cardName(top) });
  }
  return t("why.other");
}

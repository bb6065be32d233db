// Playing cards drawn as SVG: faces, backs, suit symbols and their spoken names.

import { t } from "./i18n.js";

export const SUITS = ["C", "D", "H", "S"];
const RANK_ORDER = "23456789TJQKA";
// Hand order: alternating colours, Jacks (wild) at the end.
const HAND_SUITS = { C: 0, H: 1, S: 2, D: 3 };

const SUIT_SHAPES = {
  H: '<path d="M50 90C22 68 5 52 5 32 5 16 17 6 30 6c9 0 16 5 20 12 4-7 11-12 20-12 13 0 25 10 25 26 0 20-17 36-45 58z"/>',
  D: '<path d="M50 3 88 50 50 97 12 50z"/>',
  S: '<path d="M50 4C38 22 8 38 8 60c0 13 10 22 22 22 7 0 13-3 16-8-1 10-5 17-12 22h32c-7-5-11-12-12-22 3 5 9 8 16 8 12 0 22-9 22-22C92 38 62 22 50 4z"/>',
  C: '<circle cx="50" cy="28" r="20"/><circle cx="27" cy="58" r="20"/><circle cx="73" cy="58" r="20"/><path d="M45 50h10c0 22 4 34 13 46H32c9-12 13-24 13-46z"/>',
};

export function rankOf(code) {
  return code[0];
}

export function suitOf(code) {
  return code[1];
}

export function rankLabel(rank) {
  return rank === "T" ? "10" : t(`rank.short.${rank}`);
}

/** "Queen of hearts" in the current language. */
export function cardName(code) {
  return t("card.name", { rank: t(`rank.name.${rankOf(code)}`), suit: t(`suit.name.${suitOf(code)}`) });
}

export function sortHand(hand) {
  const key = (c) => {
    const jack = rankOf(c) === "J" ? 1 : 0;
    return jack * 1000 + HAND_SUITS[suitOf(c)] * 100 + RANK_ORDER.indexOf(rankOf(c));
  };
  return [...hand].sort((a, b) => key(a) - key(b));
}

/** Inline SVG markup of a suit symbol in a 100x100 box. */
export function suitSvg(suit, extraClass = "") {
  return `<svg class="suit suit-${suit} ${extraClass}" viewBox="0 0 100 100" aria-hidden="true" focusable="false">${SUIT_SHAPES[suit]}</svg>`;
}

function pip(suit, x, y, size, flip = false) {
  const s = size / 100;
  const rot = flip ? ` rotate(180 50 50)` : "";
  return `<g transform="translate(${x - size / 2} ${y - size / 2}) scale(${s})${rot}">${SUIT_SHAPES[suit]}</g>`;
}

// Pip layouts (x, y, flipped) on a 100x140 card for 2..10.
const COLS = { l: 32, m: 50, r: 68 };
const PIPS = {
  2: [["m", 34], ["m", 106, 1]],
  3: [["m", 34], ["m", 70], ["m", 106, 1]],
  4: [["l", 34], ["r", 34], ["l", 106, 1], ["r", 106, 1]],
  5: [["l", 34], ["r", 34], ["m", 70], ["l", 106, 1], ["r", 106, 1]],
  6: [["l", 34], ["r", 34], ["l", 70], ["r", 70], ["l", 106, 1], ["r", 106, 1]],
  7: [["l", 34], ["r", 34], ["m", 52], ["l", 70], ["r", 70], ["l", 106, 1], ["r", 106, 1]],
  8: [["l", 34], ["r", 34], ["m", 52], ["l", 70], ["r", 70], ["m", 88, 1], ["l", 106, 1], ["r", 106, 1]],
  9: [["l", 32], ["r", 32], ["l", 57], ["r", 57], ["m", 70], ["l", 83, 1], ["r", 83, 1], ["l", 108, 1], ["r", 108, 1]],
  T: [["l", 32], ["r", 32], ["m", 45], ["l", 57], ["r", 57], ["l", 83, 1], ["r", 83, 1], ["m", 95, 1], ["l", 108, 1], ["r", 108, 1]],
};

function centre(rank, suit) {
  if (PIPS[rank]) return PIPS[rank].map(([c, y, f]) => pip(suit, COLS[c], y, 19, !!f)).join("");
  if (rank === "A") return pip(suit, 50, 70, 46);
  // Court cards: a framed panel with a large letter and the suit.
  const letter = rankLabel(rank);
  return (
    `<rect class="court" x="22" y="26" width="56" height="88" rx="6"/>` +
    `<text class="court-letter" x="50" y="80" text-anchor="middle">${letter}</text>` +
    pip(suit, 50, 98, 16) +
    pip(suit, 50, 42, 16, true)
  );
}

/** The face of `code` ("QH") as SVG markup. */
export function cardFaceSvg(code) {
  const rank = rankOf(code);
  const suit = suitOf(code);
  const label = rankLabel(rank);
  const corner =
    `<text class="idx" x="9" y="22" font-size="${label.length > 1 ? 17 : 20}">${label}</text>` + pip(suit, 15, 33, 13);
  return (
    `<svg class="face suit-${suit}" viewBox="0 0 100 140" aria-hidden="true" focusable="false">` +
    `<rect class="paper" x="1" y="1" width="98" height="138" rx="9"/>` +
    corner +
    `<g transform="rotate(180 50 70)">${corner}</g>` +
    centre(rank, suit) +
    `</svg>`
  );
}

export function cardBackSvg() {
  return (
    `<svg class="back" viewBox="0 0 100 140" aria-hidden="true" focusable="false">` +
    `<rect class="back-paper" x="1" y="1" width="98" height="138" rx="9"/>` +
    `<rect class="back-inner" x="9" y="9" width="82" height="122" rx="5"/>` +
    `<g class="back-mark">${pip("H", 50, 52, 22)}${pip("S", 50, 88, 22)}</g>` +
    `</svg>`
  );
}

// Each player's total after every round, as an inline SVG line chart.

import { h } from "./dom.js";
import { t } from "./i18n.js";

export const SERIES = ["#f2c14e", "#5ab0f0", "#f07a5a", "#8ed081", "#c792ea", "#f5a3c7", "#7fdbca", "#d4d4d4"];

/** rounds: round_end messages in order; limit: a target line (or null). */
export function totalsChart(rounds, players, limit) {
  const W = 320;
  const H = 160;
  const pad = { l: 34, r: 10, t: 10, b: 24 };
  const series = players.map((_, seat) => [0, ...rounds.map((r) => r.totals[seat])]);
  const ticks = niceTicks(Math.max(10, limit || 0, ...series.flat()));
  const top = ticks[ticks.length - 1];
  const x = (i) => pad.l + (i * (W - pad.l - pad.r)) / Math.max(1, rounds.length);
  const y = (v) => H - pad.b - (v * (H - pad.t - pad.b)) / top;
  const svg = h("svg:svg", {
    viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": t("chart.label"), "data-rounds": rounds.length,
  });
  for (const v of ticks) {
    svg.append(h("svg:line", { x1: pad.l, x2: W - pad.r, y1: y(v), y2: y(v), class: "grid" }));
    svg.append(h("svg:text", { x: pad.l - 5, y: y(v) + 4, "text-anchor": "end", class: "axis" }, String(v)));
  }
  if (limit) {
    svg.append(h("svg:line", { x1: pad.l, x2: W - pad.r, y1: y(limit), y2: y(limit), class: "limit" }));
    const below = y(limit) < pad.t + 12; // the limit at the top: its label under the line
    svg.append(h("svg:text", {
      x: W - pad.r - 2, y: below ? y(limit) + 12 : y(limit) - 4, "text-anchor": "end", class: "limit-label",
    }, t("chart.limit", { n: limit })));
  }
  rounds.forEach((r, i) => svg.append(h("svg:text", { x: x(i + 1), y: H - 6, "text-anchor": "middle", class: "axis" }, String(r.round + 1))));
  series.forEach((values, seat) => {
    const points = values.map((v, i) => `${x(i)},${y(v)}`).join(" ");
    svg.append(h("svg:polyline", { points, fill: "none", stroke: SERIES[seat % SERIES.length], "stroke-width": 2.5, "stroke-linejoin": "round" }));
    values.forEach((v, i) => i && svg.append(h("svg:circle", { cx: x(i), cy: y(v), r: 3, fill: SERIES[seat % SERIES.length] })));
  });
  const legend = h("ul", { class: "legend" },
    players.map((name, seat) => h("li", {}, swatch(SERIES[seat % SERIES.length]), name)));
  return h("figure", { class: "chart-box" }, svg, legend);
}

/** Round ticks from 0 up to at least `max`: steps of 1, 2 or 5 times a power of ten,
 * four to six of them (0, 25, 50, ... rather than 0, 52, 103). */
export function niceTicks(max) {
  const rough = max / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= rough);
  const ticks = [];
  for (let v = 0; v < max + step; v += step) ticks.push(v);
  if (ticks[ticks.length - 2] >= max) ticks.pop();
  return ticks;
}

// The colour is set through the element's style object: a style attribute is inline
// style, which the page's Content-Security-Policy refuses.
function swatch(colour) {
  const el = h("span", { class: "swatch" });
  el.style.background = colour;
  return el;
}

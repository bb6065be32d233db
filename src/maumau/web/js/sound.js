// The table's sounds, synthesized here with the Web Audio API (no sound files), and the
// light vibration when it becomes your turn.
//
// `play(name)` sounds one cue; names it does not know are ignored, so any part of the
// client may ask for a cue (cues.js says which game event sounds which). Nothing plays
// before the user has interacted with the page: the AudioContext is made (or resumed) on
// the first tap, click or key press, and a cue asked for earlier is dropped, not kept for
// later. Sound is on by default for players and off for spectators until the switch in
// the settings menu is used; the choice is remembered (localStorage).
//
// For tests and other listeners: every cue that is played (sound on, after a gesture)
// is announced as a `maumau:sound` event on `document`, `detail.cue` its name, right
// after its oscillators were started.

const KEY = "maumau.sound";
const GAP_S = 0.09; // cues asked for at once start this far apart
const BURST_S = 0.6; // a minor cue that would wait longer than this is dropped
const AHEAD_S = 2.5; // any cue that would wait longer than this is dropped

// A cue: notes [frequency Hz, start s, length s, glide to Hz?], one waveform and volume;
// `vibrate` (ms, or a pattern) where the phone may buzz; `minor` cues (a card played or
// drawn) are dropped in a burst, the others always play.
const CUES = {
  turn: { wave: "sine", gain: 0.28, notes: [[659, 0, 0.16], [880, 0.13, 0.26]], vibrate: 45 },
  play: { wave: "triangle", gain: 0.38, notes: [[330, 0, 0.08, 170]], minor: true },
  draw: { wave: "sine", gain: 0.2, notes: [[480, 0, 0.1, 820]], minor: true },
  seven: {
    wave: "square", gain: 0.09, notes: [[392, 0, 0.13], [330, 0.12, 0.13], [262, 0.24, 0.3]],
    vibrate: [40, 50, 40],
  },
  mau: { wave: "triangle", gain: 0.26, notes: [[1047, 0, 0.09], [1319, 0.08, 0.18]] },
  penalty: { wave: "sawtooth", gain: 0.12, notes: [[196, 0, 0.32, 140]] },
  round_end: { wave: "triangle", gain: 0.24, notes: [[523, 0, 0.13], [659, 0.11, 0.13], [784, 0.22, 0.32]] },
  winner: {
    wave: "triangle", gain: 0.26,
    notes: [[523, 0, 0.13], [659, 0.12, 0.13], [784, 0.24, 0.13], [1047, 0.36, 0.55]],
  },
};

export const CUE_NAMES = Object.keys(CUES);

let gestured = false;
let spectator = false;
let context = null;
let lastStart = 0; // the context time the last cue starts
const listeners = []; // told when the switch or the default changes

/** The remembered choice: true, false, or null when the switch was never used. */
function stored() {
  try {
    const value = localStorage.getItem(KEY);
    return value === "on" ? true : value === "off" ? false : null;
  } catch {
    return null;
  }
}

/** Whether sounds play: the remembered choice, else on for players, off for spectators. */
export function soundOn() {
  return stored() ?? !spectator;
}

export function setSoundOn(on) {
  try {
    localStorage.setItem(KEY, on ? "on" : "off");
  } catch {
    // no storage (a private window): the choice holds until a reload
  }
  for (const listener of listeners) listener();
  if (on && gestured) audio(); // the switch is itself a gesture: ready the context
  if (!on && context?.state === "running") context.suspend().catch(() => {}); // hush queued notes
}

/** Call `listener` when the switch changes (or the default does, with the role). */
export function onSoundChange(listener) {
  listeners.push(listener);
}

/** A spectator's default is silence; a player's is sound. */
export function setSpectator(watching) {
  if (spectator === watching) return;
  spectator = watching;
  for (const listener of listeners) listener();
}

/** The AudioContext, made or resumed after a gesture; null before one, or without Web
 * Audio. */
function audio() {
  if (!gestured) return null;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return null;
  if (!context) context = new Context();
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

function onGesture(event) {
  if (!event.isTrusted) return;
  gestured = true;
  if (soundOn()) audio();
}

for (const type of ["pointerdown", "keydown", "touchend"]) {
  addEventListener(type, onGesture, { capture: true, passive: true });
}

/** Sound the cue `name` (and buzz where it buzzes), if sound is on and the user has
 * interacted with the page; an unknown name is ignored. */
export function play(name) {
  const cue = Object.hasOwn(CUES, name) ? CUES[name] : null;
  if (!cue || !soundOn()) return;
  const ctx = audio();
  if (!ctx) return;
  const now = ctx.currentTime;
  const start = Math.max(now + 0.01, lastStart + GAP_S);
  if (start - now > (cue.minor ? BURST_S : AHEAD_S)) return; // a burst of moves: the rest is dropped
  lastStart = start;
  for (const [freq, at, length, glide] of cue.notes) tone(ctx, cue, start + at, length, freq, glide);
  if (cue.vibrate && navigator.vibrate) navigator.vibrate(cue.vibrate);
  document.dispatchEvent(new CustomEvent("maumau:sound", { detail: { cue: name } }));
}

/** One note from `at` for `length` seconds, gliding to `glide` Hz if given. */
function tone(ctx, cue, at, length, freq, glide) {
  const osc = ctx.createOscillator();
  const env = ctx.createGain();
  osc.type = cue.wave;
  osc.frequency.setValueAtTime(freq, at);
  if (glide) osc.frequency.exponentialRampToValueAtTime(glide, at + length);
  // a short attack and an exponential fall: a soft, clickless note
  env.gain.setValueAtTime(0.0001, at);
  env.gain.exponentialRampToValueAtTime(cue.gain, at + 0.012);
  env.gain.exponentialRampToValueAtTime(0.0001, at + length);
  osc.connect(env).connect(ctx.destination);
  osc.start(at);
  osc.stop(at + length + 0.02);
  osc.onended = () => env.disconnect();
}

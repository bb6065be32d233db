"""Init scripts that watch what a page does to call its player back: the audio it
starts, the vibrations, the notifications, and a page visibility the test decides.

Each is a script run before the page's own (``BrowserContext.add_init_script``), so it
records from the first moment; ``spied`` reloads a table's page with them.
"""

from __future__ import annotations

from playwright.sync_api import Page

#: counts the AudioContexts made and the oscillators started; records each cue the
#: page announced (sound.js's ``maumau:sound`` event) with the oscillator count at that
#: moment, and every vibration asked for; ``__audioCaughtUp()`` says whether the audio
#: clock has passed the start of every note asked for
AUDIO = """
window.__audio = { contexts: 0, starts: 0, cues: [], vibes: [] };
{
  let context = null; // the page's last AudioContext, and when its last note starts
  let latest = 0;
  const Real = window.AudioContext;
  window.AudioContext = class extends Real {
    constructor(...args) { super(...args); window.__audio.contexts += 1; context = this; }
  };
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) {
    window.__audio.starts += 1;
    latest = Math.max(latest, args[0] || 0);
    return start.apply(this, args);
  };
  // whether every note asked for so far has begun (the audio clock passed it)
  window.__audioCaughtUp = () => !context || context.currentTime > latest;
  Object.defineProperty(Navigator.prototype, "vibrate", {
    configurable: true,
    value: (pattern) => { window.__audio.vibes.push(pattern); return true; },
  });
  document.addEventListener("maumau:sound", (e) =>
    window.__audio.cues.push({ cue: e.detail.cue, starts: window.__audio.starts }));
}
"""

#: the page's visibility as the test sets it: ``window.__setHidden(true)`` hides the tab
#: (document.hidden, visibilityState, and the visibilitychange event)
VISIBILITY = """
{
  let hidden = false;
  Object.defineProperty(Document.prototype, "hidden", { configurable: true, get: () => hidden });
  Object.defineProperty(Document.prototype, "visibilityState", {
    configurable: true, get: () => (hidden ? "hidden" : "visible"),
  });
  window.__setHidden = (value) => {
    hidden = value;
    document.dispatchEvent(new Event("visibilitychange"));
  };
}
"""

#: a Notification API that grants when asked and records what is shown:
#: ``__notes.asked`` (permission requests), ``__notes.shown`` ({title, body, tag}),
#: ``__notes.closed``, ``__notes.focused`` (window.focus calls)
NOTIFICATIONS = """
window.__notes = { asked: 0, shown: [], closed: 0, focused: 0, last: null };
{
  class FakeNotification {
    static permission = "default";
    static requestPermission() {
      window.__notes.asked += 1;
      FakeNotification.permission = "granted";
      return Promise.resolve("granted");
    }
    constructor(title, options = {}) {
      this.onclick = null;
      window.__notes.shown.push({ title, body: options.body, tag: options.tag });
      window.__notes.last = this;
    }
    close() { window.__notes.closed += 1; }
  }
  window.Notification = FakeNotification;
  window.focus = () => { window.__notes.focused += 1; };
}
"""


def spied(page: Page, *scripts: str) -> Page:
    """Reload ``page`` with ``scripts`` run before its own; wait for its table."""
    for script in scripts:
        page.context.add_init_script(script)
    page.reload()
    page.wait_for_selector("#table")
    return page


def cues(page: Page) -> list[str]:
    """The names of the cues the page has played so far."""
    return [str(c) for c in page.evaluate("window.__audio.cues.map((c) => c.cue)")]

// The service worker: the app shell from a cache, so that the installed app opens at
// once and, with the server out of reach, shows its own offline state (offline.js)
// instead of the browser's error page.
//
// The server serves this file at /sw.js with two constants in front of it (see
// maumau/server/http/shell.py): VERSION, a hash of the client's files, and SHELL, their
// paths. Only those paths are answered from the cache; nothing else (the API, the
// WebSocket, records, replays, metrics) is ever stored: it goes to the network as if
// there were no worker.

const PREFIX = "maumau-shell-";
const CACHE = PREFIX + VERSION;
// the pages that are the client's page: home and the invite links
const PAGES = /^\/(?:index\.html)?$|^\/g\/[A-Za-z0-9_-]+\/?$/;
const FILES = new Set(SHELL.filter((path) => path !== "/"));

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    // past the browser's HTTP cache: the files of this version, not older copies; and
    // only this release's (during a rolling upgrade another process may answer, with
    // files of another version: then this install fails and is tried on the next visit)
    const replies = await Promise.all(SHELL.map(async (path) => {
      const reply = await fetch(new Request(path, { cache: "no-cache" }));
      const release = reply.headers.get("Maumau-Shell-Version");
      if (!reply.ok || release !== VERSION) throw new Error(`${path}: ${reply.status} of release ${release}`);
      return reply;
    }));
    const cache = await caches.open(CACHE);
    await Promise.all(replies.map((reply, i) => cache.put(SHELL[i], reply)));
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith(PREFIX) && key !== CACHE) await caches.delete(key);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  let key = null;
  if (request.mode === "navigate" && PAGES.test(url.pathname)) key = "/";
  else if (FILES.has(url.pathname)) key = url.pathname;
  if (key === null) return; // the network's, untouched
  event.respondWith(fromShell(request, key));
});

async function fromShell(request, key) {
  const cache = await caches.open(CACHE);
  return (await cache.match(key)) || fetch(request);
}

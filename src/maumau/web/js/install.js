// The installable app: the service worker (/sw.js, see sw.js) that keeps the app shell.

/** Register the worker. When a new release's worker takes over a page that an older
 * one served, the page is loaded again as soon as it is out of sight (at once if it
 * is already), so that it does not run on the old shell. */
export function registerWorker() {
  if (!("serviceWorker" in navigator)) return;
  const served = Boolean(navigator.serviceWorker.controller);
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (!served) return; // the first worker: this page is already the current shell
    const reload = () => document.visibilityState === "hidden" && location.reload();
    if (document.visibilityState === "hidden") location.reload();
    else document.addEventListener("visibilitychange", reload);
  });
  navigator.serviceWorker.register("/sw.js").catch((err) => console.warn("no app shell:", err));
}

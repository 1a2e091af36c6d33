// Whether the server answers. A request that gets no answer at all (refused, reset: the server stopped or is
// restarting) marks it lost; then /healthz is asked every second until it answers, and listeners hear both
// changes, so the viewer can say "reconnecting…" and put the same view back when the server returns.

const listeners = new Set();
let online = true;
let timer = 0;

async function probe() {
  try {
    const response = await fetch('/healthz', { cache: 'no-store' });
    if (response.ok) { connection.answered(); return; }
  } catch { /* still away */ }
  timer = setTimeout(probe, 1000);
}

export const connection = {
  get online() { return online; },

  /** A request got no answer. */
  lost() {
    if (!online) return;
    online = false;
    listeners.forEach((f) => f(false));
    clearTimeout(timer);
    timer = setTimeout(probe, 1000);
  },

  /** The server answered something. */
  answered() {
    if (online) return;
    online = true;
    clearTimeout(timer);
    listeners.forEach((f) => f(true));
  },

  /** An image failed to load: only a request of our own can tell a lost server from a bad tile. */
  async check() {
    try {
      const response = await fetch('/healthz', { cache: 'no-store' });
      if (response.ok) this.answered();
    } catch {
      this.lost();
    }
  },

  /** `f(online)` on every change. */
  onChange(f) { listeners.add(f); },
};

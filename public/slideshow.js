// The slideshow: Space or ▶ starts it; each photo stays the interval the `?` panel sets (remembered), the next
// one's thumbnail and fitted tiles are fetched while this one shows; any pointer, touch, wheel or other key
// stops it, and so does the end of the folder unless "start again at the end" is ticked.
import * as api from './api.js';
import { state } from './state.js';

const STORE = 'tileserver.slideshow';

export function installSlideshow(viewer, notice) {
  const button = document.getElementById('play');
  const interval = document.getElementById('slide-interval');
  const loop = document.getElementById('slide-loop');
  try {
    const saved = JSON.parse(localStorage.getItem(STORE) ?? '{}');
    if (saved.seconds) interval.value = String(saved.seconds);
    loop.checked = Boolean(saved.loop);
  } catch { /* storage off: the defaults */ }
  const save = () => { try { localStorage.setItem(STORE, JSON.stringify({ seconds: +interval.value, loop: loop.checked })); } catch { /* off */ } };
  interval.addEventListener('change', save);
  loop.addEventListener('change', save);

  let timer = 0, running = false;
  const preloaded = new Set();

  /** Fetches image `i`'s fitted tiles (and its thumbnail) into the browser's cache, so it is sharp when shown. */
  async function preload(i) {
    const image = state.images[i];
    if (!image || image.error || image.locked || preloaded.has(image.id)) return;
    preloaded.add(image.id);
    if (image.thumbnail) new Image().src = image.thumbnail;
    const { w, h } = viewer.size();
    try {
      const v = await api.viewport(image, w, h, 'fit');
      for (const t of v.tiles) new Image().src = t.url;
    } catch { /* shown later the usual way */ }
  }

  function next() {
    if (!running) return;
    const last = state.index >= state.images.length - 1;
    if (last && !loop.checked) { stop('The slideshow has reached the last photo.'); return; }
    viewer.goTo(last ? 0 : state.index + 1).then(schedule);
  }
  function schedule() {
    if (!running) return;
    clearTimeout(timer);
    const upcoming = state.index >= state.images.length - 1 ? (loop.checked ? 0 : -1) : state.index + 1;
    if (upcoming >= 0) preload(upcoming);
    timer = setTimeout(next, Math.max(1, +interval.value) * 1000);
  }
  function start() {
    if (running || state.mode !== 'zoom' || state.images.length < 2) return;
    running = true;
    button.setAttribute('aria-pressed', 'true');
    button.textContent = '❚❚';
    button.setAttribute('aria-label', 'Stop the slideshow (Space)');
    const page = viewer.current();
    if (page && !page.isFit && page.ready) page.show(page.vw, page.vh, 'fit');
    notice.announce('Slideshow started');
    schedule();
  }
  function stop(why = null) {
    if (!running) return;
    running = false;
    clearTimeout(timer);
    button.setAttribute('aria-pressed', 'false');
    button.textContent = '▶';
    button.setAttribute('aria-label', 'Slideshow (Space)');
    if (why) notice.flash(why); else notice.announce('Slideshow stopped');
  }

  /** Space or ▶: starts it, or stops it. */
  const toggle = () => (running ? stop() : start());
  button.addEventListener('click', (e) => { e.stopPropagation(); toggle(); });
  // Any interaction but the button itself stops it.
  for (const type of ['pointerdown', 'wheel']) {
    window.addEventListener(type, (e) => { if (running && e.target !== button) stop(); }, { capture: true, passive: true });
  }

  return { start, stop, toggle, get running() { return running; } };
}

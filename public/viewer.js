// The viewer: a paged gallery of zoomable images. Drag pans, wheel and pinch zoom around the pointer,
// double-click or double-tap zooms 1.5× where it lands (via /zoomrect), the keyboard does the same, the
// address bar carries the view. Only the current page and its neighbours hold tiles.
import * as api from './api.js';
import { PageView } from './page-view.js';

const GAP = 24;                     // pixels between pages
const FLICK = 0.5;                  // px/ms that turns a short swipe into a page change

const root = document.getElementById('viewer');
const strip = document.getElementById('strip');
const overlay = { zoom: document.getElementById('zoom'), level: document.getElementById('level'), busy: document.getElementById('busy') };
const dots = document.getElementById('dots');
const prev = document.getElementById('prev');
const next = document.getElementById('next');
const toggle = document.getElementById('toggle-mode');
const minimap = { el: document.getElementById('minimap'), img: document.getElementById('minimap-img'), box: document.getElementById('minimap-box') };

const images = await api.images();
const pages = images.map((image) => new PageView(image, onPageChange));
let index = 0;
let dragOffset = 0;
pages.forEach((p) => strip.append(p.el));

const size = () => ({ w: root.clientWidth, h: root.clientHeight });
const current = () => pages[index];

function layoutStrip(animate = false) {
  const { w } = size();
  strip.classList.toggle('animate', animate);
  pages.forEach((p, i) => { p.el.style.transform = `translateX(${(i - index) * (w + GAP) + dragOffset}px)`; });
}

function onPageChange(page) {
  if (page !== current()) return;
  overlay.zoom.textContent = `${(page.zoom * 100).toFixed(page.zoom < 0.1 ? 2 : 1)} %`;
  overlay.level.textContent = `level ${page.level}`;
  overlay.busy.hidden = page.pending === 0;
  root.setAttribute('aria-busy', page.pending > 0 ? 'true' : 'false');
  updateMinimap(page);
  scheduleHash();
}

function updateMinimap(page) {
  const large = page.minZoom < 1;       // the image is larger than the window
  minimap.el.hidden = !large || !page.ready;
  if (minimap.el.hidden) return;
  const mw = 160, mh = Math.round(160 * page.image.height / page.image.width);
  if (minimap.img.dataset.image !== page.image.id) {
    minimap.img.dataset.image = page.image.id;
    minimap.el.style.width = `${mw}px`; minimap.el.style.height = `${Math.min(mh, 160)}px`;
    minimap.img.src = api.overviewURL(page.image.id, mw, Math.min(mh, 160));
  }
  const s = Math.min(mw / page.image.width, 160 / page.image.height);
  const vis = { w: Math.min(page.image.width, page.vw / page.zoom), h: Math.min(page.image.height, page.vh / page.zoom) };
  Object.assign(minimap.box.style, {
    left: `${(page.cx - vis.w / 2) * s}px`, top: `${(page.cy - vis.h / 2) * s}px`,
    width: `${vis.w * s}px`, height: `${vis.h * s}px`,
  });
}

let hashTimer = 0;
function scheduleHash() {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(() => {
    const p = current();
    if (!p.ready) return;
    const hash = `#image=${encodeURIComponent(p.image.id)}&zoom=${+p.zoom.toPrecision(8)}&cx=${+p.cx.toFixed(2)}&cy=${+p.cy.toFixed(2)}`;
    if (location.hash !== hash) history.replaceState(null, '', hash);
  }, 150);
}

function parseHash() {
  const q = new URLSearchParams(location.hash.slice(1));
  const id = q.get('image');
  const i = images.findIndex((im) => im.id === id);
  const zoom = Number(q.get('zoom')), cx = Number(q.get('cx')), cy = Number(q.get('cy'));
  return { index: i >= 0 ? i : 0, view: i >= 0 && zoom > 0 && Number.isFinite(cx) && Number.isFinite(cy) ? { zoom, cx, cy } : null };
}

/** Shows page `i`: its neighbours at overview resolution, everything further away purged. */
async function goTo(i, view = null, animate = true) {
  index = Math.max(0, Math.min(pages.length - 1, i));
  dragOffset = 0;
  layoutStrip(animate);
  const { w, h } = size();
  pages.forEach((p, k) => { if (Math.abs(k - index) > 1) p.clear(); });
  const page = current();
  await (view ? page.show(w, h, view.zoom, view.cx, view.cy) : page.ready ? page.show(w, h, page.zoom, page.cx, page.cy) : page.show(w, h));
  for (const k of [index - 1, index + 1]) {
    if (pages[k] && !pages[k].ready) pages[k].show(w, h);
  }
  [...dots.children].forEach((d, k) => d.setAttribute('aria-current', k === index ? 'true' : 'false'));
  prev.disabled = index === 0; next.disabled = index === pages.length - 1;
  root.setAttribute('aria-label', `${page.image.id}, image ${index + 1} of ${pages.length}. Drag to pan, scroll or pinch to zoom, double-click to zoom in.`);
  onPageChange(page);
}

// ---- gestures -----------------------------------------------------------------------------------------

const pointers = new Map();
let gesture = null;          // { kind: 'pan' | 'page' | 'pinch', ... }
let lastTap = null;

function point(e) {
  const r = root.getBoundingClientRect();
  return { x: e.clientX - r.left, y: e.clientY - r.top };
}

root.addEventListener('pointerdown', (e) => {
  if (e.button !== 0 && e.pointerType === 'mouse') return;
  root.setPointerCapture(e.pointerId);
  pointers.set(e.pointerId, point(e));
  const page = current();
  if (pointers.size === 2) {
    const [a, b] = [...pointers.values()];
    gesture = { kind: 'pinch', dist: Math.hypot(a.x - b.x, a.y - b.y), zoom: page.zoom };
  } else if (pointers.size === 1) {
    const p = point(e);
    gesture = { kind: page.isFit && pages.length > 1 ? 'page' : 'pan', start: p, last: p, t: performance.now(), moved: false };
    if (e.pointerType !== 'mouse') {   // double tap on touch and pen (dblclick covers the mouse)
      const now = performance.now();
      if (lastTap && now - lastTap.t < 300 && Math.hypot(p.x - lastTap.x, p.y - lastTap.y) < 30) {
        lastTap = null;
        doubleTap(p.x, p.y, false);
      } else {
        lastTap = { ...p, t: now };
      }
    }
  }
});

root.addEventListener('pointermove', (e) => {
  if (!pointers.has(e.pointerId) || !gesture) return;
  const p = point(e);
  pointers.set(e.pointerId, p);
  const page = current();
  if (gesture.kind === 'pinch' && pointers.size === 2) {
    const [a, b] = [...pointers.values()];
    const dist = Math.hypot(a.x - b.x, a.y - b.y);
    page.zoomAround(gesture.zoom * dist / gesture.dist, (a.x + b.x) / 2, (a.y + b.y) / 2);
  } else if (gesture.kind === 'pan') {
    page.setView(page.zoom, page.cx - (p.x - gesture.last.x) / page.zoom, page.cy - (p.y - gesture.last.y) / page.zoom);
    gesture.last = p;
  } else if (gesture.kind === 'page') {
    dragOffset = p.x - gesture.start.x;
    if (index === 0 && dragOffset > 0) dragOffset /= 3;                     // resist past the ends
    if (index === pages.length - 1 && dragOffset < 0) dragOffset /= 3;
    layoutStrip(false);
  }
  if (Math.hypot(p.x - gesture.start?.x, p.y - gesture.start?.y) > 4) gesture.moved = true;
});

function endPointer(e) {
  if (!pointers.delete(e.pointerId)) return;
  if (gesture?.kind === 'page') {
    const { w } = size();
    const velocity = dragOffset / Math.max(1, performance.now() - gesture.t);
    let target = index;
    if (dragOffset < -w / 2 || velocity < -FLICK) target = index + 1;
    if (dragOffset > w / 2 || velocity > FLICK) target = index - 1;
    dragOffset = 0;
    if (target !== index && target >= 0 && target < pages.length) goTo(target);
    else layoutStrip(true);
  }
  gesture = pointers.size === 1 ? { kind: 'pan', start: [...pointers.values()][0], last: [...pointers.values()][0], t: performance.now() } : null;
}
root.addEventListener('pointerup', endPointer);
root.addEventListener('pointercancel', endPointer);

root.addEventListener('wheel', (e) => {
  e.preventDefault();
  const page = current();
  const p = point(e);
  const scale = e.deltaMode === 1 ? 40 : 1;
  page.zoomAround(page.zoom * Math.exp(-e.deltaY * scale * 0.002), p.x, p.y);
}, { passive: false });

root.addEventListener('dblclick', (e) => {
  const p = point(e);
  doubleTap(p.x, p.y, e.shiftKey, e.altKey || e.metaKey);
});

/** Double tap at view point (x, y): /zoomrect decides the zoom and centre. */
async function doubleTap(x, y, out = false, flip = false) {
  const page = current();
  const at = page.toImage(x, y);
  const mode = toggle.checked !== flip ? 'toggle' : 'step';
  const r = await api.doubleTap(page.image.id, page.vw, page.vh, page.zoom, at.x, at.y, out ? 'step' : mode, out ? 1 / 1.5 : 1.5);
  page.apply(r.viewport);
}

// ---- keyboard, buttons, resize, hash ------------------------------------------------------------------

window.addEventListener('keydown', (e) => {
  if (e.target instanceof HTMLInputElement || e.ctrlKey || e.metaKey) return;
  const page = current();
  const stepX = page.vw * 0.1 / page.zoom, stepY = page.vh * 0.1 / page.zoom;
  const handled = {
    ArrowLeft: () => (e.altKey ? goTo(index - 1) : page.setView(page.zoom, page.cx - stepX, page.cy)),
    ArrowRight: () => (e.altKey ? goTo(index + 1) : page.setView(page.zoom, page.cx + stepX, page.cy)),
    ArrowUp: () => page.setView(page.zoom, page.cx, page.cy - stepY),
    ArrowDown: () => page.setView(page.zoom, page.cx, page.cy + stepY),
    '+': () => page.zoomAround(page.zoom * 1.5, page.vw / 2, page.vh / 2),
    '=': () => page.zoomAround(page.zoom * 1.5, page.vw / 2, page.vh / 2),
    '-': () => page.zoomAround(page.zoom / 1.5, page.vw / 2, page.vh / 2),
    0: () => page.show(page.vw, page.vh, 'fit'),
    1: () => page.show(page.vw, page.vh, 1, page.cx, page.cy),
    PageUp: () => goTo(index - 1),
    PageDown: () => goTo(index + 1),
  }[e.key];
  if (handled) { e.preventDefault(); handled(); }
});

prev.addEventListener('click', () => goTo(index - 1));
next.addEventListener('click', () => goTo(index + 1));
images.forEach((image, i) => {
  const dot = document.createElement('button');
  dot.type = 'button';
  dot.setAttribute('aria-label', `Show ${image.id}`);
  dot.addEventListener('click', () => goTo(i));
  dots.append(dot);
});
document.body.classList.toggle('single', images.length < 2);

// viewWillLayoutSubviews: on resize or rotation refit the bounds and keep the same point in the centre.
let resizeTimer = 0;
new ResizeObserver(() => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    const page = current();
    if (!page.ready) return;
    const { w, h } = size();
    const wasFit = page.isFit;
    layoutStrip(false);
    page.show(w, h, wasFit ? 'fit' : page.zoom, page.cx, page.cy);
    for (const k of [index - 1, index + 1]) if (pages[k]?.ready) pages[k].show(w, h);
  }, 50);
}).observe(root);

window.addEventListener('hashchange', () => {
  const { index: i, view } = parseHash();
  const page = pages[i];
  if (view && (i !== index || Math.abs(page.zoom - view.zoom) > 1e-9 || Math.abs(page.cx - view.cx) > 0.01 || Math.abs(page.cy - view.cy) > 0.01)) {
    goTo(i, view, false);
  }
});

// For tests and the console: the current view as numbers.
window.tileViewer = {
  get state() {
    const p = current();
    return { image: p.image.id, index, zoom: p.zoom, cx: p.cx, cy: p.cy, minZoom: p.minZoom, maxZoom: p.maxZoom,
      fitZoom: p.fitZoom, level: p.level, width: p.vw, height: p.vh, pending: p.pending, ready: p.ready };
  },
  tilesPerPage: () => pages.map((p) => p.tileCount),
  toImage: (x, y) => current().toImage(x, y),
  goTo,
};

const start = parseHash();
await goTo(start.index, start.view, false);
root.focus();

// The viewer: a folder of images, shown as a grid of thumbnails (the folder view) or one image at a time, zoomable
// and paged within its folder (the zoom view). Drag pans, wheel and pinch zoom around the pointer, double-click or
// double-tap zooms 1.5× where it lands (via /zoomrect), the keyboard does the same, the address bar carries the
// view (#image=…&zoom=…, or #folder=…). Only the current page and its neighbours hold tiles. The folder's listing
// is asked for again every few seconds (a 304 while nothing changed), so files added, removed or replaced show
// without a reload.
import * as api from './api.js';
import { PageView } from './page-view.js';
import { FolderView } from './folder-view.js';
import { InfoPanel } from './info-panel.js';

const GAP = 24;                     // pixels between pages
const FLICK = 0.5;                  // px/ms that turns a short swipe into a page change
const POLL = 2000;                  // ms between looks at the folder's listing
const MAX_DOTS = 24;                // more images than this get a counter instead of dots

const root = document.getElementById('viewer');
const strip = document.getElementById('strip');
const overlay = { zoom: document.getElementById('zoom'), level: document.getElementById('level'), busy: document.getElementById('busy') };
const dots = document.getElementById('dots');
const counter = document.getElementById('counter');
const prev = document.getElementById('prev');
const next = document.getElementById('next');
const toggle = document.getElementById('toggle-mode');
const toFolder = document.getElementById('to-folder');
const minimap = { el: document.getElementById('minimap'), img: document.getElementById('minimap-img'), box: document.getElementById('minimap-box') };
const info = new InfoPanel(document.getElementById('info'), document.getElementById('show-info'));
const folderView = new FolderView(document.getElementById('folder'), {
  open: (i) => openImage(i),
  enter: (path, focusID) => showFolder(path, focusID),
});

let folderPath = '';      // the folder whose images the zoom view pages through
let images = [];          // that folder's images, in order
let listingKey = '';
const pages = new Map();  // image id -> PageView, only for the current image and its neighbours
let index = 0;
let dragOffset = 0;
let mode = 'zoom';        // 'zoom' or 'folder'

const size = () => ({ w: root.clientWidth, h: root.clientHeight });

/** The page of image `i`, made (and put in the strip) when first needed. */
function pageAt(i) {
  const image = images[i];
  if (!image) return null;
  let page = pages.get(image.id);
  if (!page) {
    page = new PageView(image, onPageChange);
    pages.set(image.id, page);
    strip.append(page.el);
  }
  return page;
}
const current = () => pageAt(index);

function layoutStrip(animate = false) {
  const { w } = size();
  strip.classList.toggle('animate', animate);
  for (const [i, image] of images.entries()) {
    const page = pages.get(image.id);
    if (page) page.el.style.transform = `translateX(${(i - index) * (w + GAP) + dragOffset}px)`;
  }
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
  // Only for an image larger than the window and zoomed in: at fit zoom the whole image is on screen already.
  const large = page.minZoom < 1;
  minimap.el.hidden = !large || !page.ready || page.isFit || mode !== 'zoom';
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
    if (mode !== 'zoom' || !p?.ready) return;
    const hash = `#image=${encodeURIComponent(p.image.id)}&zoom=${+p.zoom.toPrecision(8)}&cx=${+p.cx.toFixed(2)}&cy=${+p.cy.toFixed(2)}`;
    if (location.hash !== hash) history.replaceState(null, '', hash);
  }, 150);
}

/** What the address says: a folder, or an image with an optional view. */
function parseHash() {
  const q = new URLSearchParams(location.hash.slice(1));
  const zoom = Number(q.get('zoom')), cx = Number(q.get('cx')), cy = Number(q.get('cy'));
  return {
    folder: q.get('folder'),
    image: q.get('image'),
    view: zoom > 0 && Number.isFinite(cx) && Number.isFinite(cy) ? { zoom, cx, cy } : null,
  };
}

/** Makes `listing` the folder the zoom view pages through; keeps the current image where it can. */
function adopt(listing) {
  const key = JSON.stringify(listing.images.map((i) => [i.id, i.version]));
  if (listing.folder === folderPath && key === listingKey) return false;
  const currentID = images[index]?.id;
  folderPath = listing.folder;
  listingKey = key;
  images = listing.images;
  for (const [id, page] of pages) {
    const image = images.find((im) => im.id === id);
    if (!image || image.version !== page.image.version) { page.clear(); page.el.remove(); pages.delete(id); }
  }
  const at = images.findIndex((im) => im.id === currentID);
  index = at >= 0 ? at : Math.max(0, Math.min(index, images.length - 1));
  drawDots();
  return true;
}

function drawDots() {
  const many = images.length > MAX_DOTS;
  dots.hidden = many;
  counter.hidden = !many;
  dots.replaceChildren(...(many ? [] : images.map((image, i) => {
    const dot = document.createElement('button');
    dot.type = 'button';
    dot.setAttribute('aria-label', `Show ${image.id}`);
    dot.addEventListener('click', () => goTo(i));
    return dot;
  })));
  document.body.classList.toggle('single', images.length < 2);
}

/** Shows page `i`: its neighbours at overview resolution, everything further away purged. */
async function goTo(i, view = null, animate = true) {
  if (!images.length) return showFolder(folderPath);
  index = Math.max(0, Math.min(images.length - 1, i));
  dragOffset = 0;
  const near = new Set(images.slice(Math.max(0, index - 1), index + 2).map((im) => im.id));
  for (const [id, page] of pages) {
    if (!near.has(id)) { page.clear(); page.el.remove(); pages.delete(id); }
  }
  const page = current();
  for (const k of [index - 1, index + 1]) pageAt(k);
  layoutStrip(animate);
  [...dots.children].forEach((d, k) => d.setAttribute('aria-current', k === index ? 'true' : 'false'));
  counter.textContent = `${(index + 1).toLocaleString()} / ${images.length.toLocaleString()}`;
  prev.disabled = index === 0; next.disabled = index === images.length - 1;
  toFolder.textContent = `▦ ${folderPath ? folderPath.slice(folderPath.lastIndexOf('/') + 1) : 'All images'}`;
  root.setAttribute('aria-label', `${page.image.id}, image ${index + 1} of ${images.length}. Drag to pan, scroll or pinch to zoom, double-click to zoom in, Escape for the folder.`);
  info.follow(page.image.id);
  const { w, h } = size();
  await (view ? page.show(w, h, view.zoom, view.cx, view.cy) : page.ready ? page.show(w, h, page.zoom, page.cx, page.cy) : page.show(w, h));
  for (const k of [index - 1, index + 1]) {
    const neighbour = pageAt(k);
    if (neighbour && !neighbour.ready) neighbour.show(w, h);
  }
  onPageChange(page);
}

/** The zoom view of image `i` of the folder on screen; from the folder view it is a new history entry, so the
 *  browser's Back returns to the grid (not when the history itself brought us here: `push` false). */
async function openImage(i, view = null, push = true) {
  if (push && mode === 'folder' && images[i]) history.pushState(null, '', `#image=${encodeURIComponent(images[i].id)}`);
  mode = 'zoom';
  document.body.classList.remove('browsing');
  await goTo(i, view, false);
  root.focus();
}

/** The folder view of `path`; `focusID` is the cell to focus (the image just left, the folder just left). */
async function showFolder(path, focusID = null) {
  const wasFolder = mode === 'folder' && folderPath === path;
  mode = 'folder';
  document.body.classList.add('browsing');
  minimap.el.hidden = true;
  for (const [id, page] of pages) { page.clear(); page.el.remove(); pages.delete(id); }
  const hash = `#folder=${encodeURIComponent(path)}`;
  if (location.hash !== hash) history[wasFolder || !location.hash ? 'replaceState' : 'pushState'](null, '', hash);
  try {
    await api.folder(path, (listing) => {
      if (mode !== 'folder') return;
      adopt(listing);
      folderView.show(listing, wasFolder ? null : focusID);
      focusID = null;
    });
  } catch {
    if (path) return showFolder(api.folderOf(path));     // the folder went away: its parent
  }
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
    gesture = { kind: page.isFit && images.length > 1 ? 'page' : 'pan', start: p, last: p, t: performance.now(), moved: false };
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
    if (index === images.length - 1 && dragOffset < 0) dragOffset /= 3;
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
    if (target !== index && target >= 0 && target < images.length) goTo(target);
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

// Focus rings only for keyboard users: a ring around the whole page on load says nothing to a mouse user.
window.addEventListener('keydown', (e) => { if (e.key === 'Tab') document.body.classList.add('keyboard'); }, true);
window.addEventListener('pointerdown', () => document.body.classList.remove('keyboard'), true);

window.addEventListener('keydown', (e) => {
  if (mode !== 'zoom' || e.target instanceof HTMLInputElement || e.ctrlKey || e.metaKey) return;
  const page = current();
  if (!page) return;
  if (e.key === 'Escape' && info.open) { e.preventDefault(); info.toggle(false); return; }
  if (e.key === 'Escape') { e.preventDefault(); showFolder(folderPath, page.image.id); return; }
  if (e.key === 'i' && !e.altKey) { e.preventDefault(); info.toggle(); return; }
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
toFolder.addEventListener('click', () => showFolder(folderPath, images[index]?.id));

// viewWillLayoutSubviews: on resize or rotation refit the bounds and keep the same point in the centre.
let resizeTimer = 0;
new ResizeObserver(() => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    const page = mode === 'zoom' ? current() : null;
    if (!page?.ready) return;
    const { w, h } = size();
    const wasFit = page.isFit;
    layoutStrip(false);
    page.show(w, h, wasFit ? 'fit' : page.zoom, page.cx, page.cy);
    for (const k of [index - 1, index + 1]) if (pageAt(k)?.ready) pageAt(k).show(w, h);
  }, 50);
}).observe(root);

/** Shows what the address names: a folder, or an image (in its folder) with its view. */
async function follow(hash, initial = false) {
  if (hash.folder !== null) return showFolder(hash.folder);
  if (hash.image !== null) {
    const folder = api.folderOf(hash.image);
    if (folder !== folderPath || !images.length) adopt(await api.folder(folder).catch(() => ({ folder: '', folders: [], images: [] })));
    const i = images.findIndex((im) => im.id === hash.image);
    if (i < 0) return showFolder(folderPath);
    const page = pageAt(i);
    const view = hash.view;
    if (mode === 'zoom' && i === index && page?.ready && (!view || (Math.abs(page.zoom - view.zoom) < 1e-9
        && Math.abs(page.cx - view.cx) < 0.01 && Math.abs(page.cy - view.cy) < 0.01))) return;
    return openImage(i, view, false);
  }
  if (!initial) return;
  // No address: the top folder's first image, as the product promises ("the whole photo appears at once");
  // a library whose top folder holds only folders opens on them.
  const top = await api.folder('');
  if (top.images.length) { adopt(top); return openImage(0, null, false); }
  return showFolder('');
}

window.addEventListener('hashchange', () => follow(parseHash()));

// New, removed and replaced files: the folder on screen is listed again every few seconds (304 until it changes).
setInterval(async () => {
  if (document.hidden) return;
  try {
    const listing = await api.folder(folderPath);
    if (mode === 'folder') { adopt(listing); folderView.show(listing); return; }
    if (adopt(listing)) await goTo(index, current()?.ready ? { zoom: current().zoom, cx: current().cx, cy: current().cy } : null, false);
  } catch { /* the server is restarting, or the folder went away: the next look will tell */ }
}, POLL);

// For tests and the console: the current view as numbers.
window.tileViewer = {
  get state() {
    const p = mode === 'zoom' ? current() : null;
    if (!p) return { mode, folder: folderPath, count: images.length, ready: true, pending: 0 };
    return { mode, folder: folderPath, count: images.length, image: p.image.id, index, zoom: p.zoom, cx: p.cx, cy: p.cy, minZoom: p.minZoom, maxZoom: p.maxZoom,
      fitZoom: p.fitZoom, level: p.level, width: p.vw, height: p.vh, pending: p.pending, ready: p.ready };
  },
  tilesPerPage: () => images.map((image) => pages.get(image.id)?.tileCount ?? 0),
  toImage: (x, y) => current().toImage(x, y),
  goTo,
  showFolder,
};

await follow(parseHash(), true);
if (mode === 'zoom') root.focus();

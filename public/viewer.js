// The viewer: a folder of images, shown as a grid of thumbnails (the folder view) or one image at a time, zoomable
// and paged within its folder (the zoom view). Gestures and keys are in gestures.js and keys.js; this file holds
// the state: which folder and image, the pages (only the current one and its neighbours hold tiles), the top bar,
// the address bar (#image=…&zoom=…, or #folder=…), honest messages (not found, broken, reconnecting), and the
// folder's listing, asked for again every few seconds (a 304 while nothing changed) so files added, removed or
// replaced show without a reload.
import * as api from './api.js';
import { connection } from './connection.js';
import { PageView } from './page-view.js';
import { FolderView } from './folder-view.js';
import { InfoPanel } from './info-panel.js';
import { installGestures } from './gestures.js';
import { installKeys } from './keys.js';

const GAP = 24;                     // pixels between pages
const POLL = 2000;                  // ms between looks at the folder's listing
const MAX_DOTS = 24;                // more images than this get a counter instead of dots

const root = document.getElementById('viewer');
const strip = document.getElementById('strip');
const bar = {
  title: document.getElementById('title'), zoom: document.getElementById('zoom'), busy: document.getElementById('busy'),
  toFolder: document.getElementById('to-folder'), mode: document.getElementById('toggle-mode'),
};
const dots = document.getElementById('dots');
const counter = document.getElementById('counter');
const prev = document.getElementById('prev');
const next = document.getElementById('next');
const notice = { el: document.getElementById('notice'), text: document.getElementById('notice-text'), action: document.getElementById('notice-action') };
const announcer = document.getElementById('announce');
const minimap = { el: document.getElementById('minimap'), img: document.getElementById('minimap-img'), box: document.getElementById('minimap-box') };
const info = new InfoPanel(document.getElementById('info'), document.getElementById('show-info'));
const folderView = new FolderView(document.getElementById('folder'), {
  open: (i) => openImage(i),
  enter: (path, focusID) => showFolder(path, focusID),
});

const viewer = {
  root,
  mode: 'zoom',           // 'zoom' or 'folder'
  folderPath: '',         // the folder whose images the zoom view pages through
  folderName: '',
  images: [],             // that folder's images, in order
  index: 0,
  dragOffset: 0,
  toggleMode: false,      // double-click goes fit ↔ 100 % instead of 1.5× steps
  size: () => ({ w: root.clientWidth, h: root.clientHeight }),
  current: () => pageAt(viewer.index),
  goTo: (i, view, animate) => goTo(i, view, animate),
  layoutStrip: (animate) => layoutStrip(animate),
  showFolder: (path, focusID) => showFolder(path, focusID),
  info,
};
let listingKey = '';
const pages = new Map();  // image id -> PageView, only for the current image and its neighbours

/** The page of image `i`, made (and put in the strip) when first needed. */
function pageAt(i) {
  const image = viewer.images[i];
  if (!image) return null;
  let page = pages.get(image.id);
  if (!page) {
    page = new PageView(image, onPageChange);
    pages.set(image.id, page);
    strip.append(page.el);
  }
  return page;
}

function dropPage(id, page) { page.clear(); page.el.remove(); pages.delete(id); }

function layoutStrip(animate = false) {
  const { w } = viewer.size();
  strip.classList.toggle('animate', animate);
  for (const [i, image] of viewer.images.entries()) {
    const page = pages.get(image.id);
    if (page) page.el.style.transform = `translateX(${(i - viewer.index) * (w + GAP) + viewer.dragOffset}px)`;
  }
}

/** The zoom as people read it: a percentage of native size (100 % is one image pixel per screen pixel). */
function percent(zoom) {
  const p = zoom * 100;
  return `${p < 1 ? p.toFixed(2) : p < 10 ? p.toFixed(1) : Math.round(p)} %`;
}

function onPageChange(page) {
  if (page !== viewer.current()) return;
  bar.zoom.textContent = page.error ? '' : `${percent(page.zoom)}${page.isFit ? ' · fit' : ''}`;
  bar.zoom.title = `Level ${page.level} of ${page.image.maxLevel}, tiles for ${api.pixelRatio()} device pixels per pixel`;
  bar.busy.hidden = page.pending === 0;
  root.setAttribute('aria-busy', page.pending > 0 ? 'true' : 'false');
  info.showing(page);
  updateMinimap(page);
  scheduleHash();
}

function updateMinimap(page) {
  // Only for an image larger than the window and zoomed in: at fit zoom the whole image is on screen already.
  const large = page.minZoom < 1;
  minimap.el.hidden = !large || !page.ready || page.isFit || page.error || viewer.mode !== 'zoom' || minimap.failed === page.image.id;
  if (minimap.el.hidden) return;
  const mw = 160, mh = Math.round(160 * page.image.height / page.image.width);
  if (minimap.img.dataset.image !== page.image.id) {
    minimap.img.dataset.image = page.image.id;
    minimap.el.style.width = `${mw}px`; minimap.el.style.height = `${Math.min(mh, 160)}px`;
    minimap.img.onerror = () => { minimap.failed = page.image.id; minimap.el.hidden = true; minimap.img.dataset.image = ''; };
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
/** The address bar follows the view: `#image=ID` alone at fit (so a reload or a shared link opens at fit), with
 *  zoom and centre when zoomed in. */
function scheduleHash() {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(() => {
    const p = viewer.current();
    if (viewer.mode !== 'zoom' || !p?.ready) return;
    let hash = `#image=${encodeURIComponent(p.image.id)}`;
    if (!p.isFit && !p.error) hash += `&zoom=${+p.zoom.toPrecision(8)}&cx=${+p.cx.toFixed(2)}&cy=${+p.cy.toFixed(2)}`;
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

/** A message over the view (not found, broken, reconnecting), with an optional action; null hides it. */
function say(text, action = null) {
  notice.el.hidden = !text;
  notice.text.textContent = text ?? '';
  notice.action.hidden = !action;
  if (action) { notice.action.textContent = action.label; notice.action.onclick = action.run; }
  if (text) announce(text);
}
let saying = null;          // what the notice is about: 'offline', 'missing'

function announce(text) { announcer.textContent = text; }

/** Makes `listing` the folder the zoom view pages through; keeps the current image where it can. */
function adopt(listing) {
  const key = JSON.stringify(listing.images.map((i) => [i.id, i.version, i.error ?? '']));
  if (listing.folder === viewer.folderPath && key === listingKey) return false;
  const currentID = viewer.images[viewer.index]?.id;
  viewer.folderPath = listing.folder;
  viewer.folderName = listing.name || (listing.folder ? listing.folder.slice(listing.folder.lastIndexOf('/') + 1) : '');
  listingKey = key;
  viewer.images = listing.images;
  for (const [id, page] of pages) {
    const image = viewer.images.find((im) => im.id === id);
    if (!image || image.version !== page.image.version || (image.error ?? null) !== (page.image.error ?? null)) dropPage(id, page);
  }
  const at = viewer.images.findIndex((im) => im.id === currentID);
  viewer.index = at >= 0 ? at : Math.max(0, Math.min(viewer.index, viewer.images.length - 1));
  drawDots();
  return true;
}

function drawDots() {
  const many = viewer.images.length > MAX_DOTS;
  dots.hidden = many;
  counter.hidden = !many;
  dots.replaceChildren(...(many ? [] : viewer.images.map((image, i) => {
    const dot = document.createElement('button');
    dot.type = 'button';
    dot.setAttribute('aria-label', `Show ${image.name ?? image.id}`);
    dot.addEventListener('click', () => goTo(i));
    return dot;
  })));
  document.body.classList.toggle('single', viewer.images.length < 2);
}

/** Shows page `i`: its neighbours at overview resolution, everything further away purged. */
async function goTo(i, view = null, animate = true) {
  const { images } = viewer;
  if (!images.length) return showFolder(viewer.folderPath);
  viewer.index = Math.max(0, Math.min(images.length - 1, i));
  viewer.dragOffset = 0;
  const near = new Set(images.slice(Math.max(0, viewer.index - 1), viewer.index + 2).map((im) => im.id));
  for (const [id, page] of pages) if (!near.has(id)) dropPage(id, page);
  const page = viewer.current();
  for (const k of [viewer.index - 1, viewer.index + 1]) pageAt(k);
  layoutStrip(animate);
  [...dots.children].forEach((d, k) => d.setAttribute('aria-current', k === viewer.index ? 'true' : 'false'));
  counter.textContent = `${(viewer.index + 1).toLocaleString()} / ${images.length.toLocaleString()}`;
  prev.disabled = viewer.index === 0; next.disabled = viewer.index === images.length - 1;
  const name = page.image.name ?? page.image.id;
  bar.toFolder.textContent = viewer.folderName || 'All images';
  bar.toFolder.setAttribute('aria-label', `Back to the folder ${viewer.folderName || 'All images'} (Escape)`);
  bar.title.textContent = name;
  bar.title.title = name;
  document.title = name;
  root.setAttribute('aria-label', `${name}, image ${viewer.index + 1} of ${images.length}. Drag to pan, scroll or pinch to zoom, double-click to zoom in, arrows at fit for the next image, Escape for the folder, question mark for all keys.`);
  announce(`${name}, image ${viewer.index + 1} of ${images.length}`);
  if (saying === 'missing') { say(null); saying = null; }
  info.follow(page.image.id);
  const { w, h } = viewer.size();
  const shown = view ? page.show(w, h, view.zoom, view.cx, view.cy) : page.ready ? page.show(w, h, page.isFit ? 'fit' : page.zoom, page.cx, page.cy) : page.show(w, h);
  for (const k of [viewer.index - 1, viewer.index + 1]) pageAt(k)?.overview(w, h);
  await shown;
  onPageChange(page);
}

/** The zoom view of image `i` of the folder on screen; from the folder view it is a new history entry, so the
 *  browser's Back returns to the grid (not when the history itself brought us here: `push` false). */
async function openImage(i, view = null, push = true) {
  if (push && viewer.mode === 'folder' && viewer.images[i]) history.pushState(null, '', `#image=${encodeURIComponent(viewer.images[i].id)}`);
  viewer.mode = 'zoom';
  document.body.classList.remove('browsing');
  const done = goTo(i, view, false);
  root.focus();
  await done;
}

/** The folder view of `path`; `focusID` is the cell to focus (the image just left, the folder just left).
 *  A folder that is not there says so and shows the nearest one that is; a lost server keeps what is shown. */
async function showFolder(path, focusID = null, missing = null) {
  let listing;
  try {
    listing = await api.folder(path, (partial) => { if (viewer.mode === 'folder' && folderView.path === path) folderView.show(partial); });
  } catch (error) {
    if (!(error instanceof api.APIError)) return;            // no server: stay, the notice says reconnecting
    if (path) return showFolder(api.folderOf(path), null, missing ?? path);
    return;
  }
  const wasFolder = viewer.mode === 'folder' && viewer.folderPath === path;
  viewer.mode = 'folder';
  document.body.classList.add('browsing');
  minimap.el.hidden = true;
  for (const [id, page] of pages) dropPage(id, page);
  const hash = `#folder=${encodeURIComponent(path)}`;
  if (location.hash !== hash) history[wasFolder || !location.hash || missing ? 'replaceState' : 'pushState'](null, '', hash);
  adopt(listing);
  document.title = listing.name || 'All images';
  folderView.show(listing, wasFolder ? null : focusID);
  if (missing) { saying = 'missing'; say(`There is no folder “${missing}”. Showing ${listing.name ? `“${listing.name}”` : 'all images'}.`); }
  else if (saying === 'missing') { say(null); saying = null; }
}

/** Shows what the address names: a folder, or an image (in its folder) with its view. */
async function follow(hash, initial = false) {
  if (hash.folder !== null) return showFolder(hash.folder);
  if (hash.image !== null) {
    const folder = api.folderOf(hash.image);
    if (folder !== viewer.folderPath || !viewer.images.length) {
      try { adopt(await api.folder(folder)); } catch (error) { if (!(error instanceof api.APIError)) return; }
    }
    const i = viewer.images.findIndex((im) => im.id === hash.image);
    if (i < 0) {
      await showFolder(viewer.folderPath === folder ? folder : '');
      saying = 'missing';
      say(`There is no image “${hash.image}”: it was moved, renamed or removed. Here is its folder.`);
      return;
    }
    const page = pageAt(i);
    const view = hash.view;
    if (viewer.mode === 'zoom' && i === viewer.index && page?.ready && (!view || (Math.abs(page.zoom - view.zoom) < 1e-9
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

// A lost server: say so, keep the view; when it answers again, put back exactly what the address bar says.
connection.onChange((online) => {
  document.body.classList.toggle('offline', !online);
  if (!online) { saying = 'offline'; say('Reconnecting to the server…'); return; }
  if (saying === 'offline') { say(null); saying = null; }
  announce('Connected again.');
  const p = viewer.mode === 'zoom' ? viewer.current() : null;
  if (p && !p.error) {
    const { w, h } = viewer.size();
    p.show(w, h, p.isFit ? 'fit' : p.zoom, p.cx, p.cy).then(() => onPageChange(p));
  } else if (viewer.mode === 'folder') {
    showFolder(viewer.folderPath);
  }
});

// New, removed and replaced files: the folder on screen is listed again every few seconds (304 until it changes).
setInterval(async () => {
  if (document.hidden) return;
  ratioChanged();
  try {
    const listing = await api.folder(viewer.folderPath);
    if (viewer.mode === 'folder') { adopt(listing); folderView.show(listing); return; }
    const p = viewer.current();
    if (adopt(listing)) await goTo(viewer.index, p?.ready && !p.isFit ? { zoom: p.zoom, cx: p.cx, cy: p.cy } : null, false);
  } catch { /* the server is restarting, or the folder went away: the next look will tell */ }
}, POLL);

prev.addEventListener('click', () => goTo(viewer.index - 1));
next.addEventListener('click', () => goTo(viewer.index + 1));
bar.toFolder.addEventListener('click', () => showFolder(viewer.folderPath, viewer.images[viewer.index]?.id));
// The double-click switch is in the top bar (wide screens) and in the keys panel (every screen): one state.
const modeSwitches = [bar.mode, document.getElementById('toggle-mode-panel')];
for (const button of modeSwitches) {
  button.addEventListener('click', () => {
    viewer.toggleMode = !viewer.toggleMode;
    for (const b of modeSwitches) b.setAttribute('aria-pressed', String(viewer.toggleMode));
  });
}
// A control used with the mouse or a tap gives the keyboard back to the picture: +, 0, 1, arrows work at once.
for (const el of [prev, next, bar.mode, dots]) el.addEventListener('click', () => root.focus({ preventScroll: true }));

// The tiles are chosen for device pixels: when the ratio changes (page zoom, another screen), ask again. The media
// query tells at once where the browser reports it; the listing poll and resizes look too.
let shownRatio = api.pixelRatio();
function ratioChanged() {
  if (api.pixelRatio() === shownRatio) return;
  shownRatio = api.pixelRatio();
  const p = viewer.mode === 'zoom' ? viewer.current() : null;
  if (p?.ready && !p.error) p.refresh();
}
function watchPixelRatio() {
  matchMedia(`(resolution: ${window.devicePixelRatio}dppx)`).addEventListener('change', () => { ratioChanged(); watchPixelRatio(); }, { once: true });
}
watchPixelRatio();
window.addEventListener('resize', ratioChanged);

// viewWillLayoutSubviews: on resize or rotation refit the bounds and keep the same point in the centre.
let resizeTimer = 0;
new ResizeObserver(() => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    const page = viewer.mode === 'zoom' ? viewer.current() : null;
    if (!page?.ready) return;
    const { w, h } = viewer.size();
    layoutStrip(false);
    page.show(w, h, page.isFit ? 'fit' : page.zoom, page.cx, page.cy);
    for (const k of [viewer.index - 1, viewer.index + 1]) if (pageAt(k)?.ready) pageAt(k).show(w, h);
  }, 50);
}).observe(root);

installGestures(viewer);
installKeys(viewer);

// For tests and the console: the current view as numbers.
window.tileViewer = {
  get state() {
    const p = viewer.mode === 'zoom' ? viewer.current() : null;
    if (!p) return { mode: viewer.mode, folder: viewer.folderPath, count: viewer.images.length, ready: true, pending: 0 };
    return { mode: viewer.mode, folder: viewer.folderPath, count: viewer.images.length, image: p.image.id, name: p.image.name, index: viewer.index,
      zoom: p.zoom, fit: p.isFit, cx: p.cx, cy: p.cy, minZoom: p.minZoom, maxZoom: p.maxZoom, fitZoom: p.fitZoom, level: p.level,
      width: p.vw, height: p.vh, pending: p.pending, ready: p.ready, error: p.error, online: connection.online };
  },
  tilesPerPage: () => viewer.images.map((image) => pages.get(image.id)?.tileCount ?? 0),
  toImage: (x, y) => viewer.current().toImage(x, y),
  goTo,
  showFolder,
};

await follow(parseHash(), true);
if (viewer.mode === 'zoom') root.focus();

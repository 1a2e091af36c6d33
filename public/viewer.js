// The viewer: a folder of images, shown as a grid of thumbnails (the folder view) or one image at a time, zoomable
// and paged within its folder (the zoom view). This file holds the zoom view's pages (only the current one and its
// neighbours hold tiles), the top bar and what the address bar says, and wires the parts together. What the parts
// share is declared in state.js; the keys are keys.js's table; gestures, screen changes, the minimap, the gallery
// bar, the grids, keeping in step with the server, the address format and the messages are modules of their own.
import * as api from './api.js';
import { PageView } from './page-view.js';
import { FolderView } from './folder-view.js';
import { InfoPanel } from './info-panel.js';
import { installGestures } from './gestures.js';
import { installKeys } from './keys.js';
import { Minimap } from './minimap.js';
import { imageAddress, parseAddress, showing } from './address.js';
import { GalleryNav } from './gallery-nav.js';
import { Notice } from './notice.js';
import { installScreenWatch } from './screen-watch.js';
import { showAccount } from './auth.js';
import { retireFirstPicture } from './first-picture.js';
import { installChrome } from './chrome.js';
import { installSlideshow } from './slideshow.js';
import { installFind } from './find.js';
import { installBrowse } from './browse.js';
import { installInStep } from './in-step.js';
import { installTestHook } from './test-hook.js';
import { installMeasure } from './measure.js';
import { state, set } from './state.js';

const GAP = 24;                     // pixels between pages
const root = document.getElementById('viewer');
const strip = document.getElementById('strip');
const bar = {
  title: document.getElementById('title'), zoom: document.getElementById('zoom'), busy: document.getElementById('busy'),
  toFolder: document.getElementById('to-folder'), mode: document.getElementById('toggle-mode'),
};
const nav = new GalleryNav((i) => goTo(i));
const notice = new Notice();
const minimap = new Minimap(document.getElementById('minimap'), document.getElementById('minimap-img'), document.getElementById('minimap-box'));
const measure = installMeasure({ root }, { notice });
const info = new InfoPanel(document.getElementById('info'), document.getElementById('show-info'));
const folderView = new FolderView(document.getElementById('folder'), {
  open: (i) => (browse.found ? browse.openFound(browse.found.images[i].id) : openImage(i)),
  enter: (path, focusID) => showFolder(path, focusID),
});

/** What the modules may ask of the zoom view (frozen: nothing is added to it); what they share is `state`. */
const viewer = Object.freeze({
  root,
  size: () => ({ w: root.clientWidth, h: root.clientHeight }),
  current: () => pageAt(state.index),
  neighbours: () => [state.index - 1, state.index + 1].map(pageAt).filter(Boolean),
  goTo: (i, view, animate) => goTo(i, view, animate),
  layoutStrip: (animate) => layoutStrip(animate),
  showFolder: (path, focusID) => showFolder(path, focusID),
  /** Back to the grid the zoom view pages through (the album's results, else the folder), focusing `focusID`. */
  toGrid: (focusID) => {
    writeAddress();                 // the photo's entry names the photo left, however soon after a step
    return state.album ? browse.showSearch(state.album, true, focusID) : showFolder(state.folderPath, focusID);
  },
  /** Fits `page` (worked out here when the server is away). */
  fit: (page) => page.show(page.screen.w, page.screen.h, 'fit'),
  /** Turns the view of the current image to `degrees` and fits it; the address keeps the turn. */
  rotate: async (degrees) => {
    const page = viewer.current();
    if (!page || page.error) return;
    const { w, h } = viewer.size();
    await page.rotate(degrees, w, h);
    onPageChange(page);
  },
  /** The address of `page`'s view: its id, its zoom and centre unless at fit, its turn, and the album's words
   *  (not for `shared` links: those open the photo in its folder). */
  addressOf: (page, shared = false) => imageAddress(page.image.id, page.isFit || page.error ? null : page, page.rotation,
    shared ? '' : state.album),
});
let listingKey = '';
const pages = new Map();  // image id -> PageView, only for the current image and its neighbours

/** The page of image `i`, made (and put in the strip) when first needed. */
function pageAt(i) {
  const image = state.images[i];
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
  for (const [i, image] of state.images.entries()) {
    const page = pages.get(image.id);
    if (page) page.el.style.transform = `translateX(${(i - state.index) * (w + GAP) + state.dragOffset}px)`;
  }
}

/** The zoom as people read it: a percentage of native size (100 % is one image pixel per screen pixel). */
function percent(zoom) {
  const p = zoom * 100;
  return `${p < 1 ? p.toFixed(2) : p < 10 ? p.toFixed(1) : Math.round(p)} %`;
}

function onPageChange(page) {
  if (page !== viewer.current()) return;
  // Past a tiered image's public size, the pill says how much larger than those pixels the picture is drawn.
  const upscaled = page.upscale > 1.001;
  const said = page.error ? '' : upscaled ? `${page.upscale.toFixed(1)}× upscaled${page.isFit ? ' · fit' : ''}`
    : `${percent(page.zoom)}${page.isFit ? ' · fit' : ''}`;
  if (said !== bar.zoom.textContent) { bar.zoom.textContent = said; chrome?.showZoom(); }
  bar.zoom.title = upscaled ? `The public size (${page.public.width} × ${page.public.height} px) drawn ${page.upscale.toFixed(1)} times larger: sign in to see more`
    : `Level ${page.level} of ${page.image.maxLevel}, tiles for ${api.pixelRatio()} device pixels per pixel`;
  bar.busy.hidden = page.pending === 0;
  root.setAttribute('aria-busy', page.pending > 0 ? 'true' : 'false');
  info.showing(page);
  for (const overlay of [minimap, measure]) overlay.update(page, state.mode === 'zoom');
  scheduleAddress();
}

let addressTimer = 0;
/** The address bar follows the view, shortly after it settles. */
function scheduleAddress() {
  clearTimeout(addressTimer);
  addressTimer = setTimeout(writeAddress, 150);
}

/** The address bar says the view on screen now. */
function writeAddress() {
  clearTimeout(addressTimer);
  const p = viewer.current();
  if (state.mode !== 'zoom' || !p?.ready) return;
  const address = viewer.addressOf(p);
  if (!showing(address)) history.replaceState(null, '', address);
}


/** Makes `listing` what the zoom view pages through (a folder's, or a search's: an album); keeps the current
 *  image where it can. */
function adopt(listing) {
  showAccount(listing);
  const album = listing.folder === api.SEARCH ? listing.search : '';
  const key = JSON.stringify(listing.images.map((i) => [i.id, i.version, i.error ?? '']));
  if ((album ? album === state.album : listing.folder === state.folderPath && !state.album) && key === listingKey) return false;
  const currentID = state.images[state.index]?.id;
  listingKey = key;
  for (const [id, page] of pages) {
    const image = listing.images.find((im) => im.id === id);
    if (!image || image.version !== page.image.version || (image.error ?? null) !== (page.image.error ?? null)) dropPage(id, page);
  }
  const at = listing.images.findIndex((im) => im.id === currentID);
  const index = at >= 0 ? at : Math.max(0, Math.min(state.index, listing.images.length - 1));
  if (album) set({ album, search: album, images: listing.images, index });
  else set({ album: '', folderPath: listing.folder, images: listing.images, index,
    folderName: listing.name || (listing.folder ? listing.folder.slice(listing.folder.lastIndexOf('/') + 1) : '') });
  nav.draw(state.images);
  return true;
}


/** Shows page `i`: its neighbours at overview resolution, everything further away purged. */
async function goTo(i, view = null, animate = true, rotation = null) {
  const { images } = state;
  if (!images.length) return showFolder(state.folderPath);
  set({ index: Math.max(0, Math.min(images.length - 1, i)), dragOffset: 0 });
  const near = new Set(images.slice(Math.max(0, state.index - 1), state.index + 2).map((im) => im.id));
  for (const [id, page] of pages) if (!near.has(id)) dropPage(id, page);
  const page = viewer.current();
  if (rotation !== null) page.rotation = rotation;
  // The address names the image at once (a reload or Back right after a step must not find the one before).
  const early = state.mode === 'zoom' && imageAddress(page.image.id, view ?? (page.ready && !page.isFit ? page : null), page.rotation, state.album);
  if (early && !showing(early)) history.replaceState(null, '', early);
  viewer.neighbours();                // made now, so the strip lays them out beside the page
  layoutStrip(animate);
  nav.mark(state.index, images.length);
  const name = page.image.name ?? page.image.id;
  bar.toFolder.textContent = state.album ? `“${state.album}”` : state.folderName || 'All images';
  bar.toFolder.setAttribute('aria-label', state.album ? `Back to the results for “${state.album}” (Escape)`
    : `Back to the folder ${state.folderName || 'All images'} (Escape)`);
  bar.title.textContent = name;
  bar.title.title = name;
  document.title = name;
  root.setAttribute('aria-label', `${name}, image ${state.index + 1} of ${images.length}. Drag to pan, scroll or pinch to zoom, double-click to zoom in, arrows at fit for the next image, Escape for the folder, question mark for all keys.`);
  notice.announce(`${name}, image ${state.index + 1} of ${images.length}`);
  notice.clear('missing');
  if (page.image.warning) notice.say(page.image.warning, 'partial'); else notice.clear('partial');   // a file cut short
  info.follow(page.image.id);
  chrome.links();
  retireFirstPicture(page);
  const { w, h } = viewer.size();
  const shown = view ? page.show(w, h, view.zoom, view.cx, view.cy) : page.ready ? page.show(w, h, page.isFit ? 'fit' : page.zoom, page.cx, page.cy) : page.show(w, h);
  for (const neighbour of viewer.neighbours()) neighbour.overview(w, h);
  await shown;
  onPageChange(page);
}

/** Whether the view the address asked for at load has been shown: the poll waits for it. */
let opened = false;

/** The zoom view of image `i` of the folder on screen; from the folder view it is a new history entry, so the
 *  browser's Back returns to the grid (not when the history itself brought us here: `push` false). */
async function openImage(i, view = null, push = true, rotation = null) {
  if (push && state.mode === 'folder' && state.images[i]) history.pushState(null, '', imageAddress(state.images[i].id, null, 0, state.album));
  set({ mode: 'zoom' });
  document.body.classList.remove('browsing');
  const done = goTo(i, view, false, rotation);
  root.focus();
  await done;
}

/** The grids: a folder's and a search's (browse.js). */
const browse = installBrowse({
  folderView, notice, adopt, showAccount, follow: (address) => follow(address),
  leaveZoom: () => {
    retireFirstPicture();
    document.body.classList.add('browsing');
    minimap.hide();
    for (const [id, page] of pages) dropPage(id, page);
  },
});
const showFolder = browse.showFolder;

/** Shows what the address names: a folder, or an image (in its folder) with its view. */
async function follow(address, initial = false) {
  // Back from a photo to its grid focuses the photo just viewed, as Escape does.
  const left = state.mode === 'zoom' ? state.images[state.index]?.id : null;
  if (address.q && address.image === null) return browse.showSearch(address.q, false, left);
  if (address.folder !== null) return showFolder(address.folder, left);
  if (address.image !== null) {
    const folder = api.folderOf(address.image);
    if (address.q) {
      // An album: the results of the words, as the grid showed them (or asked again, for a reload or a link).
      if (address.q !== state.album || !state.images.length) {
        try {
          adopt(browse.found?.search === address.q ? browse.found : await api.search(address.q, state.sort));
        } catch { return; }
      }
    } else if (folder !== state.folderPath || state.album || !state.images.length) {
      try { adopt(browse.remember(await api.folder(folder, null, state.sort))); } catch (error) { if (!(error instanceof api.APIError)) return; }
    }
    const i = state.images.findIndex((im) => im.id === address.image);
    if (i < 0 && !address.renamed) {
      // An id of an earlier version (a bookmark, a `#image=` link the server never saw): the server redirects
      // its API address to today's id, and the viewer follows it there.
      const today = await api.image(address.image).then((entry) => entry.id, () => null);
      if (today && today !== address.image) {
        history.replaceState(null, '', imageAddress(today, address.view, address.rotation, address.q ?? ''));
        return follow({ ...parseAddress(), renamed: true }, initial);
      }
    }
    if (i < 0) {
      await showFolder(state.folderPath === folder ? folder : '');
      notice.say(`There is no image “${address.image}”: it was moved, renamed or removed. Here is its folder.`, 'missing');
      return;
    }
    const page = pageAt(i);
    const view = address.view;
    if (state.mode === 'zoom' && i === state.index && page?.ready && page.rotation === address.rotation && (!view || (Math.abs(page.zoom - view.zoom) < 1e-9
        && Math.abs(page.cx - view.cx) < 0.01 && Math.abs(page.cy - view.cy) < 0.01))) return;
    return openImage(i, view, false, address.rotation);
  }
  if (!initial) return;
  // No address: the top folder's first image, as the product promises ("the whole photo appears at once");
  // a library whose top folder holds only folders opens on them.
  const top = await api.folder('', null, state.sort);
  if (top.images.length) { adopt(browse.remember(top)); return openImage(0, null, false); }
  return showFolder('');
}

// Back, Forward, and a `#…` link followed within the page (which is a history step too).
window.addEventListener('popstate', () => follow(parseAddress()));

installInStep(viewer, {
  browse, folderView, notice, adopt, onPageChange, ratioChanged: () => ratioChanged(),
  goTo: (i, view, animate) => goTo(i, view, animate), opened: () => opened,
});

nav.prev.addEventListener('click', () => goTo(state.index - 1));
nav.next.addEventListener('click', () => goTo(state.index + 1));
bar.toFolder.addEventListener('click', () => viewer.toGrid(state.images[state.index]?.id));
// A control used with the mouse or a tap gives the keyboard back to the picture: +, 0, 1, arrows work at once.
for (const el of [nav.prev, nav.next, bar.mode, nav.dots]) el.addEventListener('click', () => root.focus({ preventScroll: true }));

installGestures(viewer);
const chrome = installChrome(viewer, { notice, info });
installFind({
  search: (q) => browse.showSearch(q),
  leave: () => showFolder(state.folderPath),
  reorder: () => (browse.found ? browse.showSearch(browse.found.search, false) : showFolder(state.folderPath)),
});
const slideshow = installSlideshow(viewer, notice);
installKeys(viewer, { info, chrome, slideshow, folderView, measure });
const ratioChanged = installScreenWatch(viewer);

installTestHook({ pages, slideshow, goTo, showFolder, opened: () => opened });

try { await follow(parseAddress(), true); } finally { opened = true; }
if (state.mode === 'zoom') root.focus();

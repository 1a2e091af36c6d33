// The server's JSON API: the source of truth for zoom bounds, visible tiles and double-tap results.
// Every call goes through `getJSON`, which tells the connection watcher whether the server answered at all.
import { connection } from './connection.js';

/** A failed answer from a server that is there: `status` is its HTTP status, `message` its JSON error. */
export class APIError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function getJSON(url) {
  let response;
  try {
    const early = window.firstListing;
    if (early?.url === url) window.firstListing = null;   // the page's inline script asked for it already
    response = await (early?.url === url ? early.answer : fetch(url));
  } catch (error) {
    connection.lost();                       // no answer at all: the server is down or restarting
    throw error;
  }
  connection.answered();
  if (!response.ok) {
    let message = `${response.status}`;
    try { message = (await response.json()).error ?? message; } catch { /* not JSON */ }
    throw new APIError(response.status, message);
  }
  return response.json();
}

const enc = encodeURIComponent;

/** Whether this browser decodes WebP (every current one does), found once by decoding a 1 × 1 WebP. */
const decodesWebP = new Promise((resolve) => {
  if (typeof Image === 'undefined') { resolve(false); return; }
  const probe = new Image();
  probe.onload = () => resolve(probe.width === 1);
  probe.onerror = () => resolve(false);
  probe.src = 'data:image/webp;base64,UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA';
});

/** Whether this browser decodes AVIF (every current one does), found once by decoding a 2 × 2 AVIF. */
const decodesAVIF = new Promise((resolve) => {
  if (typeof Image === 'undefined') { resolve(false); return; }
  const probe = new Image();
  probe.onload = () => resolve(probe.width === 2);
  probe.onerror = () => resolve(false);
  probe.src = 'data:image/avif;base64,AAAAIGZ0eXBhdmlmAAAAAGF2aWZtaWYxbWlhZk1BMUEAAADybWV0YQAAAAAAAAAoaGRscgAAAAAAAAAAcGljdAAAAAAAAAAAAAAAAGxpYmF2aWYAAAAADnBpdG0AAAAAAAEAAAAeaWxvYwAAAABEAAABAAEAAAABAAABGgAAABkAAAAoaWluZgAAAAAAAQAAABppbmZlAgAAAAABAABhdjAxQ29sb3IAAAAAamlwcnAAAABLaXBjbwAAABRpc3BlAAAAAAAAAAIAAAACAAAAEHBpeGkAAAAAAwgICAAAAAxhdjFDgSAAAAAAABNjb2xybmNseAABAA0ABoAAAAAXaXBtYQAAAAAAAAABAAEEAQKDBAAAACFtZGF0EgAKBzgANhAQ0GkyDBjADTTTRAAAsBNK+A==';
});

/** The tile format to ask for `image` in: the one its server's store keeps (the entry's `format`), so a tile is
 *  cut once and sent as cut, never decoded and encoded again per request (a fitted view of a new photo took 20×
 *  longer as WebP from a JPEG store). Only a format this browser cannot decode falls back to JPEG. */
export async function tileFormat(image) {
  const kept = image?.format ?? 'jpg';
  if (kept === 'webp') return (await decodesWebP) ? 'webp' : 'jpg';
  if (kept === 'avif') return (await decodesAVIF) ? 'avif' : 'jpg';
  return kept === 'png' ? 'png' : 'jpg';
}
const num = (v) => (Math.round(v * 1e6) / 1e6).toString();

/** Device pixels per CSS pixel of this screen now (page zoom and the monitor change it): tiles are chosen for
 *  device pixels, so a phone at ratio 3 gets sharp ones. */
export const pixelRatio = () => Math.min(4, Math.max(1, window.devicePixelRatio || 1));

/** Everything in `folder` ('' is the top): its sub-folders and all its images, following `next` pages.
 *  `onPage(listing)` sees each page as it arrives, so a folder of 10,000 images shows its first 1,000 at once. */
export async function folder(path, onPage, sort = 'name') {
  // Always in an order asked for: 'name' is the server's name order (folded, digits as numbers, titles where they
  // are names), not the library's order of ids.
  let url = `/api/images?folder=${enc(path)}&sort=${sort || 'name'}`;
  const all = { folder: path, name: '', trail: [], folders: [], images: [] };
  while (url) {
    const page = await getJSON(url);
    // The folder as the server names it (an old path is redirected to today's).
    if (!all.folders.length) Object.assign(all, { folder: page.folder ?? path, folders: page.folders, name: page.name, trail: page.trail, user: page.user ?? null, login: page.login ?? null });
    all.images.push(...page.images);
    onPage?.(all);
    url = page.next;
  }
  return all;
}

/** The images the words `q` find across the library (name, title, caption, keywords, creators), in `sort`
 *  order, all pages; shaped as a folder's listing so the grid shows it. */
export async function search(q, sort = 'name') {
  let url = `/api/images?q=${enc(q)}&sort=${sort}&limit=1000`;
  const all = { folder: SEARCH, name: '', trail: [], folders: [], images: [], search: q, total: 0 };
  while (url) {
    const page = await getJSON(url);
    all.images.push(...page.images);
    all.total = page.total;
    all.user = page.user ?? null;
    all.login = page.login ?? null;
    all.indexing = page.indexing;
    url = all.images.length < 10_000 ? page.next : null;
  }
  all.trail = [{ name: `“${q}”: ${all.total.toLocaleString()} photo${all.total === 1 ? '' : 's'}`, path: SEARCH }];
  return all;
}

/** The folder path search results are shown as (no folder has it: paths never start with a NUL). */
export const SEARCH = '\u0000search';

/** The folder an image id sits in: everything before its last '/'. */
export function folderOf(id) {
  const slash = id.lastIndexOf('/');
  return slash < 0 ? '' : id.slice(0, slash);
}

/** /viewport of `image` for a view of `width × height` CSS pixels; zoom is a number, 'fit' or 'max'. */
export async function viewport(image, width, height, zoom = 'fit', cx, cy, ratio = pixelRatio()) {
  let url = `/api/images/${enc(image.id)}/viewport?width=${Math.round(width)}&height=${Math.round(height)}&zoom=${typeof zoom === 'number' ? num(zoom) : zoom}`;
  if (cx !== undefined && cy !== undefined) url += `&cx=${num(cx)}&cy=${num(cy)}`;
  return getJSON(`${url}&dpr=${num(ratio)}&format=${await tileFormat(image)}`);
}

/** /zoomrect for a double tap at image point (x, y) of `image`. */
export async function doubleTap(image, width, height, zoom, x, y, mode = 'step', factor = 1.5) {
  return getJSON(`/api/images/${enc(image.id)}/zoomrect?width=${Math.round(width)}&height=${Math.round(height)}` +
    `&zoom=${zoom === 'fit' ? 'fit' : num(zoom)}&x=${num(x)}&y=${num(y)}&mode=${mode}&factor=${num(factor)}` +
    `&dpr=${num(pixelRatio())}&format=${await tileFormat(image)}`);
}

/** The thumbnail the page's inline script asked for before the listing came (index.html), if it is image `id`'s:
 *  the page shows the same picture from the browser's memory instead of downloading it again. */
export function earlyThumbnail(id) {
  const picture = window.firstPicture;
  return picture?.dataset.image === id && picture.src ? picture.src : null;
}

/** A small picture of the whole image for the minimap. */
export function overviewURL(id, width, height) {
  return `/api/images/${enc(id)}/viewport.jpg?width=${Math.round(width)}&height=${Math.round(height)}`;
}

/** The view `page` shows now as one picture at device pixels: the part of the image on screen (no letterbox),
 *  turned as it is shown, through the view-image API; what "Save this view" downloads. */
export function viewImageURL(image, page) {
  // Device pixels, but never past native size (the server's largest zoom). `vw × vh` is the unturned view.
  const ratio = Math.max(1e-6, Math.min(pixelRatio(), (page.maxZoom || 1) / page.zoom)), z = page.zoom * ratio;
  const w = Math.max(1, Math.round(Math.min(page.vw, image.width * page.zoom) * ratio));
  const h = Math.max(1, Math.round(Math.min(page.vh, image.height * page.zoom) * ratio));
  const [width, height] = page.rotation % 180 ? [h, w] : [w, h];
  return `/api/images/${enc(image.id)}/viewport.jpg?width=${width}&height=${height}&zoom=${num(z)}&cx=${num(page.cx)}&cy=${num(page.cy)}`
    + (page.rotation ? `&rotate=${page.rotation}` : '');
}

/** One image's entry, with the `metadata` its file carries. */
export function image(id) {
  return getJSON(`/api/images/${enc(id)}`);
}

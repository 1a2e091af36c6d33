// The folder view: breadcrumbs, the folder's sub-folders, and a grid of its images as thumbnails (each the
// pyramid's own one-tile level, so they come from the tile cache). Thumbnails load lazily as they scroll into
// view and off-screen cells are not laid out (content-visibility), so a folder of 10,000 images opens at once.
// Arrow keys move between cells, Enter opens, Backspace goes up a folder; taps and clicks open. Names are as
// written on disk (the listing's `name`), never the ASCII ids; a file that cannot be shown is listed with why.

import * as api from './api.js';
import { state } from './state.js';

const label = (path) => path.slice(path.lastIndexOf('/') + 1);
/** `text` as a sentence: its first letter capitalised. */
const sentence = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/** A lazily loaded thumbnail; `tiny` ones are drawn with hard pixels at their own size (a 1 × 1 image is a dot). */
function thumbnail(url, tiny = false) {
  const img = document.createElement('img');
  img.loading = 'lazy';
  img.decoding = 'async';
  img.alt = '';
  img.draggable = false;
  if (tiny) img.className = 'tiny';
  img.src = url;
  return img;
}

/** A cell's picture box in CSS pixels (the grid's narrow and wide layouts: style.css). */
const box = () => (window.innerWidth <= 480 ? { w: 130, h: 120 } : { w: 200, h: 160 });

/** On a screen of more than one device pixel a pixel, a picture of `image` sized for the cell at device pixels
 *  (the view-image API, the image's own shape, no letterbox), when the pyramid's one-tile thumbnail would be
 *  drawn larger than its pixels; else nil, and the thumbnail tile (from the tile cache) it is. */
function sharpThumbnail(image) {
  const ratio = api.pixelRatio(), { w, h } = box();
  if (ratio <= 1 || !image.width || !image.height) return null;
  const scale = Math.min(1, (w * ratio) / image.width, (h * ratio) / image.height);
  const tile = image.tileSize || 256;
  if (Math.max(image.width, image.height) * scale <= tile) return null;
  const width = Math.max(1, Math.round(image.width * scale)), height = Math.max(1, Math.round(image.height * scale));
  return `/api/images/${encodeURIComponent(image.id)}/viewport.jpg?width=${width}&height=${height}&zoom=fit&v=${image.version}`;
}

export class FolderView {
  /** `open(image)` shows an image; `enter(path)` shows another folder. */
  constructor(root, { open, enter }) {
    this.root = root;
    this.open = open;
    this.enter = enter;
    this.crumbs = root.querySelector('#crumbs');
    this.grid = root.querySelector('#grid');
    this.path = null;
    this.key = '';
  }

  /** Shows `listing` ({folder, folders, images}); redraws only what changed since the last call. */
  show(listing, focusID = null) {
    const key = JSON.stringify([listing.folder, listing.search ?? null, listing.folders.map((f) => [f.path, f.count, f.cover, f.locked]),
      listing.images.map((i) => [i.id, i.version, i.error])]);
    if (key === this.key) {
      if (focusID) this.focus(focusID);
      return;
    }
    const changedFolder = this.path !== listing.folder;
    const focused = document.activeElement?.dataset?.id;
    this.key = key;
    this.path = listing.folder;
    this.drawCrumbs(listing);
    const cells = [
      ...listing.folders.map((f) => this.folderCell(f)),
      ...listing.images.map((image, i) => this.imageCell(image, i)),
    ];
    this.grid.replaceChildren(...cells);
    if (!cells.length) {
      const empty = document.createElement('p');
      empty.className = 'empty';
      if (listing.search === undefined) {
        empty.textContent = 'No images here yet. Files copied into this folder appear by themselves.';
      } else {
        // A search that found nothing says so, with the way back to the folder it was made from.
        const back = document.createElement('button');
        back.type = 'button';
        back.className = 'pill';
        back.textContent = state.folderName ? `Back to “${state.folderName}”` : 'Back to all images';
        back.addEventListener('click', () => this.enter(state.folderPath));
        empty.append(`Nothing matches “${listing.search}”: no name, title, caption, keyword or creator has every word. `, back);
      }
      this.grid.append(empty);
    }
    this.root.setAttribute('aria-label', `${listing.name || 'All images'}: ${listing.folders.length} folders, ${listing.images.length} images`);
    const target = focusID ?? (changedFolder ? null : focused);
    if (!(target && this.focus(target)) && changedFolder) this.root.scrollTop = 0;
  }

  /** Focuses the cell of `id` (an image id, or `folder:` and a path) and scrolls it into view, if it is there. */
  focus(id) {
    const cell = [...this.grid.children].find((c) => c.dataset.id === id);
    if (!cell) return false;
    cell.focus({ preventScroll: true });
    cell.scrollIntoView({ block: 'nearest' });
    return true;
  }

  drawCrumbs(listing) {
    const links = [{ name: 'All images', path: '' }, ...listing.trail];
    this.crumbs.replaceChildren(...links.map((link, i) => {
      const last = i === links.length - 1;
      const el = document.createElement(last ? 'span' : 'a');
      el.textContent = link.name;
      if (last) el.setAttribute('aria-current', 'page');
      else {
        el.href = `?folder=${encodeURIComponent(link.path)}`;
        el.addEventListener('click', (e) => { e.preventDefault(); this.enter(link.path); });
      }
      return el;
    }));
  }

  folderCell(folder) {
    const cell = document.createElement('button');
    cell.type = 'button';
    cell.className = 'cell folder';
    cell.dataset.id = `folder:${folder.path}`;
    const name = folder.name ?? label(folder.path);
    cell.innerHTML = '<span class="picture" aria-hidden="true"></span><span class="name"></span><span class="count"></span>';
    const picture = cell.querySelector('.picture');
    if (folder.cover) {          // the folder's first image is its cover, with a small folder mark
      const cover = document.createElement('span');
      cover.className = 'cover';
      cover.append(thumbnail(folder.cover));
      picture.append(cover);
    } else {
      picture.innerHTML = '<span class="icon"></span>';
    }
    cell.querySelector('.name').textContent = name;
    cell.querySelector('.count').textContent = `${folder.count.toLocaleString()} image${folder.count === 1 ? '' : 's'}`;
    const why = folder.locked ? sentence(folder.note ?? 'for signed-in viewers of its group') : '';
    cell.setAttribute('aria-label', `Folder ${name}, ${folder.count} images${why ? `. ${why}` : ''}`);
    if (folder.locked) {          // its photos are for a group this viewer is not in: a lock, and why on hover
      cell.classList.add('locked-folder');
      cell.title = why;
    }
    cell.addEventListener('click', () => this.enter(folder.path));
    return cell;
  }

  imageCell(image, index) {
    const cell = document.createElement('button');
    cell.type = 'button';
    cell.className = 'cell image';
    cell.dataset.id = image.id;
    const shown = image.name ?? label(image.id);
    const picture = document.createElement('span');
    picture.className = 'picture';
    const name = document.createElement('span');
    name.className = 'name';
    name.textContent = shown;
    cell.append(picture, name);
    const broken = (why) => {
      cell.classList.add('broken-file');
      picture.replaceChildren();
      const problem = document.createElement('span');
      problem.className = 'problem';
      problem.textContent = 'cannot be shown';
      if (!cell.querySelector('.problem')) cell.append(problem);
      cell.title = why;
      cell.setAttribute('aria-label', `${shown}: cannot be shown. ${why}`);
    };
    if (image.locked) {
      cell.classList.add('locked-file');
      cell.title = sentence(image.note ?? 'for signed-in viewers');
      cell.setAttribute('aria-label', `${shown}: ${cell.title}`);
    } else if (image.rawOnly) {     // a camera raw with no picture beside it: not broken, only not shown
      cell.classList.add('raw-only');
      const problem = document.createElement('span');
      problem.className = 'problem';
      problem.textContent = 'RAW without a preview';
      cell.append(problem);
      cell.title = image.error;
      cell.setAttribute('aria-label', `${shown}: RAW without a preview. ${image.error}`);
    } else if (image.error) {
      broken(image.error);
    } else {
      const img = thumbnail(sharpThumbnail(image) ?? image.thumbnail, image.width <= 16 && image.height <= 16);
      img.onerror = () => broken('The file could not be decoded.');
      picture.append(img);
      cell.setAttribute('aria-label', `${shown}, ${image.width} × ${image.height}${image.warning ? `. ${image.warning}` : ''}`);
      if (image.warning) {          // a file cut short: its picture is the part that could be read
        cell.classList.add('partial-file');
        cell.title = image.warning;
      }
    }
    cell.addEventListener('click', () => this.open(index));
    return cell;
  }

  /** Grid navigation: the number of columns is read from the layout. */
  /** Whether the grid answers key `e` (its row of the key table, keys.js): there are cells, and going up needs a
   *  folder above. */
  takes(e) {
    const up = e.key === 'Backspace' || (e.key === 'ArrowUp' && e.altKey);
    return this.grid.querySelector('.cell') !== null && (!up || Boolean(this.path));
  }

  /** Up one folder, focusing the folder just left. */
  up() {
    this.enter(this.path.includes('/') ? this.path.slice(0, this.path.lastIndexOf('/')) : '', `folder:${this.path}`);
  }

  /** Moves the focus between cells: arrows by one or a row, Home and End to the ends (Alt+↑: up a folder). */
  move(e) {
    if (e.key === 'ArrowUp' && e.altKey) return this.up();
    const cells = [...this.grid.querySelectorAll('.cell')];
    const at = cells.indexOf(document.activeElement);
    const columns = Math.max(1, Math.round(this.grid.clientWidth / (cells[0].offsetWidth || 1)));
    const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -columns, ArrowDown: columns, Home: -Infinity, End: Infinity }[e.key];
    const next = at < 0 ? 0 : Math.max(0, Math.min(cells.length - 1, at + step));
    cells[next].focus();
    cells[next].scrollIntoView({ block: 'nearest' });
  }
}

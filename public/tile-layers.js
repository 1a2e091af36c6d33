// The tiles of one page's stage: one layer per pyramid level (a higher level above a lower one, so the lower
// shows through until the higher has loaded), each tile an <img> placed in image pixels. Counts what is still
// loading, lets the page wait for a set of tiles, keeps next-level preloads out of the page, and drops what the
// current view no longer wants.
const MAX_TILES = 300;

export class TileLayers {
  /** `image`: the listing entry (size, tile size, levels); `onLoad()` after each tile settles; `onFail()` when
   *  a tile failed twice. */
  constructor(stage, image, onLoad, onFail) {
    this.stage = stage;
    this.image = image;
    this.onLoad = onLoad;
    this.onFail = onFail;
    this.layers = new Map();      // level -> layer element
    this.tiles = new Map();       // url -> { img, level, loaded, waiters }
    this.preloads = new Map();    // url -> Image (next-level prefetch, not in the page)
    this.pending = 0;
  }

  get size() { return this.tiles.size; }

  layer(level) {
    let layer = this.layers.get(level);
    if (!layer) {
      layer = document.createElement('div');
      layer.className = 'layer';
      layer.style.zIndex = String(level + 1);
      layer.dataset.level = String(level);
      const after = [...this.layers.keys()].filter((l) => l > level).sort((a, b) => a - b)[0];
      this.stage.insertBefore(layer, after === undefined ? null : this.layers.get(after));
      this.layers.set(level, layer);
    }
    return layer;
  }

  /** Tile `t` ({ url, level, x, y, w, h } with w and h in image pixels) in its layer, unless it is there. A tile
   *  of a tiered image's public level says where it lies (`image`: the region it shows, in image pixels). */
  add(t) {
    if (this.tiles.has(t.url)) return;
    const img = document.createElement('img');
    img.alt = '';
    img.draggable = false;
    img.decoding = 'async';
    if (t.image) {                  // public tiles' regions overlap by up to a pixel: no seams to hide
      Object.assign(img.style, { left: `${t.image.x}px`, top: `${t.image.y}px`, width: `${t.image.width}px`, height: `${t.image.height}px` });
    } else {
      const shrink = Math.pow(2, this.image.maxLevel - t.level);
      // One level pixel of overlap on interior edges hides the hairline seams of fractional scales.
      const left = t.x * this.image.tileSize * shrink, top = t.y * this.image.tileSize * shrink;
      const w = left + t.w < this.image.width ? t.w + shrink : t.w;
      const h = top + t.h < this.image.height ? t.h + shrink : t.h;
      Object.assign(img.style, { left: `${left}px`, top: `${top}px`, width: `${w}px`, height: `${h}px` });
    }
    const entry = { img, level: t.level, loaded: false, waiters: [] };
    this.tiles.set(t.url, entry);
    this.pending++;
    let retried = false;
    const done = () => {
      img.style.visibility = '';
      entry.loaded = true;
      this.pending--;
      entry.waiters.forEach((f) => f());
      this.onLoad();
    };
    img.onload = done;
    img.onerror = () => {
      img.style.visibility = 'hidden';   // never a broken-image icon: the level below shows through
      if (!retried) { // one retry, after a short backoff
        retried = true;
        setTimeout(() => { img.src = `${t.url}${t.url.includes('?') ? '&' : '?'}retry=1`; }, 400 + Math.random() * 400);
        return;
      }
      this.tiles.delete(t.url);
      done();
      img.remove();                      // asked for again by the next view of this place
      this.onFail();
    };
    img.src = t.url;
    this.layer(t.level).append(img);
  }

  /** Fetches `url` into the browser's cache without putting it on the page (the next level, zoomed in). */
  preload(url) {
    if (this.preloads.has(url)) return;
    const img = new Image();
    img.src = url;
    this.preloads.set(url, img);
  }

  /** Calls `done` once every tile of `urls` that is on the page has settled. */
  whenLoaded(urls, done) {
    let left = urls.length;
    if (left === 0) { done(); return; }
    for (const url of urls) {
      const entry = this.tiles.get(url);
      if (!entry || entry.loaded) { if (--left === 0) done(); continue; }
      entry.waiters.push(() => { if (--left === 0) done(); });
    }
  }

  /** Removes tiles not wanted for the current view: other levels once the current one is in, and anything
   *  beyond the cap, farthest first. */
  purge(wanted, level) {
    for (const [url, entry] of this.tiles) {
      if (!wanted.has(url) && (entry.level !== level || this.tiles.size > MAX_TILES)) this.remove(url, entry);
    }
    for (const [url, img] of this.preloads) {
      if (this.preloads.size <= MAX_TILES) break;
      img.src = ''; this.preloads.delete(url);
    }
    for (const [l, layer] of this.layers) {
      if (!layer.firstChild) { layer.remove(); this.layers.delete(l); }
    }
  }

  remove(url, entry) {
    if (!entry.loaded) this.pending--;
    entry.img.onload = entry.img.onerror = null;
    entry.img.remove();
    this.tiles.delete(url);
  }

  /** Drops every tile, layer and preload. */
  clear() {
    for (const [url, entry] of this.tiles) this.remove(url, entry);
    for (const img of this.preloads.values()) img.src = '';
    this.preloads.clear();
    for (const layer of this.layers.values()) layer.remove();
    this.layers.clear();
  }
}

// One image of the gallery: a stage scaled to the zoom, the image's thumbnail stretched under everything, and the
// tiles above it (tile-layers.js), so the picture is never blank where pixels are known. Which tiles exist comes
// from /viewport (chosen for device pixels); only those are requested, plus, once zoomed in, the ring around
// them and the next level.
import * as api from './api.js';
import { connection } from './connection.js';
import { TileLayers } from './tile-layers.js';
import { prompt, SignInOffer } from './auth.js';
import { clamp, clampedCenter, fitZoom, insets, turnedBack, visibleRect } from './view-math.js';

export class PageView {
  constructor(image, onChange) {
    this.image = image;
    this.onChange = onChange;
    this.el = document.createElement('div');
    this.el.className = 'page';
    this.el.dataset.image = image.id;
    this.stage = document.createElement('div');
    this.stage.className = 'stage';
    // The view turned by `rotation` (0, 90, 180, 270° clockwise): the stage lies in `turn`, a box of the view's
    // size as the unturned image sees it (width and height swapped at 90° and 270°), turned about its centre.
    this.turn = document.createElement('div');
    this.turn.className = 'turn';
    this.turn.append(this.stage);
    this.el.append(this.turn);
    this.rotation = 0;
    this.screen = { w: 1, h: 1 };
    this.tiles = new TileLayers(this.stage, image, () => this.onChange?.(this), () => this.tileFailed());
    this.zoom = 1; this.cx = image.width / 2; this.cy = image.height / 2;
    this.minZoom = 1; this.maxZoom = 1; this.fitZoom = 1; this.level = 0;
    this.fit = true;              // at fit: a state the server confirms, never a float compared
    this.vw = 1; this.vh = 1;
    this.request = 0;             // numbers /viewport answers so stale ones are ignored
    this.timer = 0;
    this.ready = false;
    this.error = null;
    this.base = null;
    if (image.locked) this.lock();
    else if (image.error) this.fail(image.error, false);
    else this.addBase();
    // A tiered image: "Sign in to see more", offered once, the first time the view goes past the public size.
    this.offer = image.locked ? null : SignInOffer.of(image, this.el);
    this.public = null;           // the public size a tiered image is limited to here ({width, height, scale})
  }

  /** How many times larger than its public size a tiered image is drawn (device pixels per public pixel), or 0. */
  get upscale() { return this.public ? this.zoom * api.pixelRatio() / this.public.scale : 0; }
  /** The zoom of 100 %: native size, or a tiered image's public size at one of its pixels per device pixel. */
  get fullZoom() { return this.public ? this.public.scale / api.pixelRatio() : 1; }

  /** A restricted image: its name with a lock and a way to sign in, no pixels. */
  lock() {
    this.error = 'locked';
    this.ready = true;
    this.el.replaceChildren(prompt(this.image, () => location.reload()));
  }

  get isFit() { return this.fit; }
  /** Tiles still loading. */
  get pending() { return this.tiles.pending; }

  /** The thumbnail, stretched to the whole image: on screen in the first frame, refined by tiles. */
  addBase() {
    if (!this.image.thumbnail || !this.image.width) return;
    const img = document.createElement('img');
    img.className = 'base';
    img.setAttribute('elementtiming', 'thumbnail');   // when the picture was first painted (Element Timing)
    img.alt = '';
    img.draggable = false;
    img.fetchPriority = 'high';
    img.src = api.earlyThumbnail(this.image.id) ?? this.image.thumbnail;
    Object.assign(img.style, { width: `${this.image.width}px`, height: `${this.image.height}px` });
    img.onerror = () => this.tileFailed();
    this.base = img;
    this.stage.prepend(img);
  }

  /** `w × h` of the screen as the unturned image sees it, and the turn box placed for it. */
  local(w, h) {
    this.screen = { w, h };
    const sideways = this.rotation % 180 !== 0;
    const [lw, lh] = sideways ? [h, w] : [w, h];
    this.turn.style.width = `${lw}px`;
    this.turn.style.height = `${lh}px`;
    this.turn.style.transform = this.rotation ? `translate(${w / 2}px, ${h / 2}px) rotate(${this.rotation}deg) translate(${-lw / 2}px, ${-lh / 2}px)` : '';
    return [lw, lh];
  }

  /** The view point under screen point (x, y) of the page (they differ when the view is turned). */
  toLocal(x, y) {
    if (!this.rotation) return { x, y };
    const d = this.toLocalDelta(x - this.screen.w / 2, y - this.screen.h / 2);
    return { x: this.vw / 2 + d.x, y: this.vh / 2 + d.y };
  }

  /** A movement (dx, dy) on screen as a movement in the view. */
  toLocalDelta(dx, dy) { return turnedBack(dx, dy, this.rotation); }

  /** Turns the view to `degrees` (a multiple of 90) and fits it on a `w × h` screen. */
  rotate(degrees, w, h) {
    this.rotation = ((Math.round(degrees / 90) * 90) % 360 + 360) % 360;
    return this.show(w, h, 'fit');
  }

  /** Draws the view the page is about to ask for at once (fit when no zoom), from the image's size alone. */
  preview(vw, vh, zoom = 'fit', cx, cy) {
    if (this.ready || !this.image.width) return;
    [vw, vh] = this.local(vw, vh);
    this.vw = vw; this.vh = vh;
    this.zoom = typeof zoom === 'number' ? zoom : fitZoom(this.image.width, this.image.height, vw, vh);
    this.fit = typeof zoom !== 'number';
    if (cx !== undefined) { this.cx = cx; this.cy = cy; }
    this.render();
  }

  /** Size the view and ask the server for the view at `zoom` (a number, 'fit' or 'max') around (cx, cy). */
  async show(vw, vh, zoom = 'fit', cx, cy) {
    const screen = [vw, vh];
    [vw, vh] = this.local(vw, vh);
    const resized = vw !== this.vw || vh !== this.vh;
    this.vw = vw; this.vh = vh;
    if (this.error) { this.onChange?.(this); return null; }
    this.preview(...screen, zoom, cx, cy);
    // Drawn for another screen size: drawn for this one at once (the bars faded), the server's answer refines it.
    if (this.ready && resized) this.viewLocally(zoom, cx, cy);
    const ticket = ++this.request;
    let v;
    try {
      v = await api.viewport(this.image, vw, vh, zoom, cx, cy);
    } catch (error) {
      if (error instanceof api.APIError && error.status !== 503) this.fail(error.message);
      else if (!(error instanceof api.APIError) && this.ready && ticket === this.request) this.viewLocally(zoom, cx, cy);
      return null;
    }
    if (ticket !== this.request) return v;
    this.apply(v);
    return v;
  }

  /** With the server away: the view at `zoom` ('fit' or a number) worked out here, drawn with the tiles the
   *  page has (sharper ones come when the server answers again). */
  viewLocally(zoom, cx, cy) {
    const { width: W, height: H } = this.image;
    const fitted = fitZoom(W, H, this.vw, this.vh);
    this.fit = zoom === 'fit' || (typeof zoom === 'number' && zoom <= fitted);
    this.zoom = this.fit ? fitted : clamp(zoom === 'max' ? this.maxZoom : zoom, fitted, this.maxZoom);
    if (this.fit) { this.cx = W / 2; this.cy = H / 2; } else if (cx !== undefined) { this.cx = cx; this.cy = cy; }
    this.render();
  }

  /** A neighbour's picture: thumbnail at once, then the tiles of a view half the size (a quarter of the bytes of
   *  the fit view), never anything sharper until it is shown. */
  async overview(vw, vh) {
    if (this.error || this.ready) return;
    this.preview(vw, vh);
    [vw, vh] = [this.vw, this.vh];
    const ticket = ++this.request;
    let v;
    try { v = await api.viewport(this.image, vw / 2, vh / 2, 'fit', undefined, undefined, 1); } catch { return; }
    if (ticket !== this.request || this.ready) return;
    for (const t of v.tiles) this.tiles.add({ ...t, w: t.screen.width / v.zoom, h: t.screen.height / v.zoom });
  }

  /** Adopts a /viewport answer: bounds, zoom, centre, tiles. */
  apply(v) {
    this.public = v.public ?? null;
    this.minZoom = v.minZoom; this.maxZoom = v.maxZoom; this.fitZoom = v.fitZoom;
    this.zoom = v.zoom; this.fit = v.fit; this.cx = v.center.x; this.cy = v.center.y; this.level = v.level;
    this.ready = true;
    this.render();
    this.place(v);
  }

  /** Moves the stage to the current zoom and centre (no network). */
  render() {
    const { width: W, height: H } = this.image;
    const c = clampedCenter(W, H, this.vw, this.vh, this.zoom, this.cx, this.cy);
    this.cx = c.x; this.cy = c.y;
    const vis = visibleRect(W, H, this.vw, this.vh, this.zoom, this.cx, this.cy);
    const inset = insets(W, H, this.vw, this.vh, this.zoom);
    // Whole-pixel translation keeps tile edges on pixel boundaries where the zoom allows it.
    const tx = Math.round(inset.left - vis.x * this.zoom), ty = Math.round(inset.top - vis.y * this.zoom);
    this.stage.style.transform = `translate(${tx}px, ${ty}px) scale(${this.zoom})`;
    this.offer?.update(this.upscale);
    this.onChange?.(this);
  }

  /** Sets zoom (clamped: at or below the fit zoom is fit) and centre, draws, and fetches the tiles shortly. An
   *  answer still on its way for an earlier view (a resize's, a key's) is dropped: what was done last wins. */
  setView(zoom, cx, cy, immediate = false) {
    if (!this.ready) return;
    this.request++;
    this.fit = zoom <= this.minZoom;
    this.zoom = this.fit ? this.minZoom : clamp(zoom, this.minZoom, this.maxZoom);
    this.cx = cx; this.cy = cy;
    this.render();
    clearTimeout(this.timer);
    if (immediate) this.refresh(); else this.timer = setTimeout(() => this.refresh(), 60);
  }

  /** Asks /viewport for the tiles of the current view ('fit' by name at fit, so no rounding moves it off). */
  async refresh() {
    const ticket = ++this.request;
    let v;
    try {
      v = await api.viewport(this.image, this.vw, this.vh, this.fit ? 'fit' : this.zoom, this.cx, this.cy);
    } catch { return; }
    if (ticket !== this.request) return;
    this.level = v.level;
    this.public = v.public ?? null;
    this.minZoom = v.minZoom; this.maxZoom = v.maxZoom; this.fitZoom = v.fitZoom; this.fit = v.fit;
    this.offer?.update(this.upscale);
    this.onChange?.(this);
    this.place(v);
  }

  /** Image point under the view point (sx, sy). */
  toImage(sx, sy) {
    const { width: W, height: H } = this.image;
    const vis = visibleRect(W, H, this.vw, this.vh, this.zoom, this.cx, this.cy);
    const inset = insets(W, H, this.vw, this.vh, this.zoom);
    return { x: vis.x + (sx - inset.left) / this.zoom, y: vis.y + (sy - inset.top) / this.zoom };
  }

  /** Zooms to `zoom` keeping the image point under (sx, sy) where it is. */
  zoomAround(zoom, sx, sy) {
    if (!this.ready) return;
    const z = clamp(zoom, this.minZoom, this.maxZoom);
    const p = this.toImage(sx, sy);
    const { width: W, height: H } = this.image;
    const inset = insets(W, H, this.vw, this.vh, z);
    const x0 = p.x - (sx - inset.left) / z;
    const y0 = p.y - (sy - inset.top) / z;
    this.setView(z, x0 + Math.min(W, this.vw / z) / 2, y0 + Math.min(H, this.vh / z) / 2);
  }

  /** Puts the visible tiles in; zoomed in, then the prefetch ring and the next level; then drops what is far
   *  away. At fit nothing more is fetched: the server warms the next level in its own cache, and a first open
   *  costs only what is on screen. */
  place(v) {
    const wanted = new Set();
    const visible = v.tiles.map((t) => ({ ...t, w: t.screen.width / v.zoom, h: t.screen.height / v.zoom }));
    for (const t of visible) { wanted.add(t.url); this.tiles.add(t); }
    const finish = () => {
      if (v !== this.lastPlaced) return; // a newer view has replaced this one
      if (!v.fit) {
        const size = v.tileSize / v.levelScale;
        for (const t of v.prefetch.filter((p) => p.level === v.level)) {
          const w = Math.min(size, this.image.width - t.x * size), h = Math.min(size, this.image.height - t.y * size);
          wanted.add(t.url);
          this.tiles.add({ ...t, w, h });
        }
        for (const t of v.prefetch) if (t.level !== v.level) this.tiles.preload(t.url);
      }
      this.tiles.purge(wanted, v.level);
      this.onChange?.(this);
    };
    this.lastPlaced = v;
    this.tiles.whenLoaded(visible.map((t) => t.url), finish);
  }

  /** A tile or the thumbnail did not load: the server is away, or the file is damaged (its entry then says why). */
  async tileFailed() {
    if (this.checking || this.error) return;
    this.checking = true;
    try {
      const entry = await api.image(this.image.id);
      if (entry.error) this.fail(entry.error);
    } catch (error) {
      if (error instanceof api.APIError && error.status >= 400 && error.status < 500 && error.status !== 404) this.fail(error.message);
      else if (!(error instanceof api.APIError)) connection.check();
    } finally {
      this.checking = false;
    }
  }

  /** Shows why the image cannot be shown, in place of the picture. */
  fail(message, notify = true) {
    this.error = message;
    this.clear();
    this.ready = true;
    const box = document.createElement('div');
    box.className = 'broken';
    box.setAttribute('role', 'alert');
    const line = (className, textContent) => Object.assign(document.createElement('p'), { className, textContent });
    box.append(line('title', 'This file cannot be shown'), line('why', message));
    this.el.replaceChildren(box);
    if (notify) this.onChange?.(this);
  }

  /** Drops every tile (the thumbnail stays: a few KB, and the picture if the page comes back). */
  clear() {
    clearTimeout(this.timer);
    this.request++;
    this.tiles.clear();
    this.ready = false;
  }

  get tileCount() { return this.tiles.size; }
}

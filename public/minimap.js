// The minimap: a small picture of the whole image with the visible part framed, in a corner while zoomed in on
// an image larger than the window. At fit the whole image is on screen already, so it hides.
import * as api from './api.js';

const SIZE = 160;                   // CSS pixels of the longer side at most

export class Minimap {
  constructor(el, img, box) {
    this.el = el; this.img = img; this.box = box;
    this.failed = null;             // the image whose overview did not load: no broken-image icon, no minimap
  }

  hide() { this.el.hidden = true; }

  /** Shows or hides the minimap for `page` (`shown`: the zoom view is on screen) and frames its view. */
  update(page, shown) {
    const large = page.minZoom < 1;
    this.el.hidden = !shown || !large || !page.ready || page.isFit || page.error || this.failed === page.image.id;
    if (this.el.hidden) return;
    const { width: W, height: H } = page.image;
    const mw = SIZE, mh = Math.min(SIZE, Math.round(SIZE * H / W));
    if (this.img.dataset.image !== page.image.id) {
      this.img.dataset.image = page.image.id;
      this.el.style.width = `${mw}px`; this.el.style.height = `${mh}px`;
      this.img.onerror = () => { this.failed = page.image.id; this.el.hidden = true; this.img.dataset.image = ''; };
      this.img.src = api.overviewURL(page.image.id, mw, mh);
    }
    const s = Math.min(mw / W, SIZE / H);
    const vis = { w: Math.min(W, page.vw / page.zoom), h: Math.min(H, page.vh / page.zoom) };
    Object.assign(this.box.style, {
      left: `${(page.cx - vis.w / 2) * s}px`, top: `${(page.cy - vis.h / 2) * s}px`,
      width: `${vis.w * s}px`, height: `${vis.h * s}px`,
    });
  }
}

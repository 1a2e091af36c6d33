// For tests and the console: `window.tileViewer`, the current view as numbers, read without changing what is
// shown, and a few calls.
import { connection } from './connection.js';
import { state } from './state.js';

/** `pages`: image id → page of the zoom view; `opened()`: whether the first view is in. */
export function installTestHook({ pages, slideshow, goTo, showFolder, opened }) {
  window.tileViewer = {
    get state() {
      // Read without making a page (a look must not change what is shown); ready once the first view is in.
      const p = state.mode === 'zoom' ? pages.get(state.images[state.index]?.id) : null;
      if (!p) return { mode: state.mode, folder: state.folderPath, album: state.album, count: state.images.length, ready: opened(), pending: 0 };
      return { mode: state.mode, folder: state.folderPath, album: state.album, count: state.images.length, image: p.image.id,
        name: p.image.name, index: state.index, zoom: p.zoom, fit: p.isFit, cx: p.cx, cy: p.cy, minZoom: p.minZoom,
        maxZoom: p.maxZoom, fitZoom: p.fitZoom, level: p.level, width: p.vw, height: p.vh, pending: p.pending,
        ready: p.ready, error: p.error, online: connection.online, rotation: p.rotation, slideshow: slideshow.running,
        upscale: p.upscale, public: p.public };
    },
    tilesPerPage: () => state.images.map((image) => pages.get(image.id)?.tileCount ?? 0),
    toImage: (x, y) => pages.get(state.images[state.index]?.id)?.toImage(x, y),
    goTo,
    showFolder,
  };
}

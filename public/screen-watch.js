// Changes of the screen under the zoom view. The tiles are chosen for device pixels, so when the ratio changes
// (page zoom, a window moved to another screen) the view is asked for again; the media query tells at once
// where the browser reports it, and resizes and the listing poll look too. On a resize, a rotation, or the bars
// fading or coming back, the pages are fitted again around the same centre (viewWillLayoutSubviews).
import * as api from './api.js';
import { state } from './state.js';

/** Installs the watch; returns the check the listing poll calls. */
export function installScreenWatch(viewer) {
  let shownRatio = api.pixelRatio();
  const zoomPage = () => (state.mode === 'zoom' ? viewer.current() : null);
  function ratioChanged() {
    if (api.pixelRatio() === shownRatio) return;
    shownRatio = api.pixelRatio();
    const p = zoomPage();
    if (p?.ready && !p.error) p.refresh();
  }
  function watchPixelRatio() {
    matchMedia(`(resolution: ${window.devicePixelRatio}dppx)`).addEventListener('change', () => { ratioChanged(); watchPixelRatio(); }, { once: true });
  }
  watchPixelRatio();
  window.addEventListener('resize', ratioChanged);

  /** Fits the zoom view again to the size it now has, around the same centre, at the same zoom unless it was
   *  at fit. The observer also reports the size it starts with: a page already shown at this size is left alone
   *  (asking again cost every first view a second /viewport and the server a second prefetch). */
  function refit() {
    const page = zoomPage();
    if (!page?.ready) return;
    const { w, h } = viewer.size();
    if (page.screen.w === w && page.screen.h === h) return;
    viewer.layoutStrip(false);
    page.show(w, h, page.isFit ? 'fit' : page.zoom, page.cx, page.cy);
    for (const neighbour of viewer.neighbours()) if (neighbour.ready) neighbour.show(w, h);
  }
  // The bars faded or came back: at once, in the frame that changed the area, so the photo never jumps first.
  window.addEventListener('bars', refit);
  let resizeTimer = 0;
  new ResizeObserver(() => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(refit, 50);
  }).observe(viewer.root);
  return ratioChanged;
}

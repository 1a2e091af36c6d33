// The same scroll-view formulas as the server (Sources/TileGeometry/Zoom), for drawing between server answers.

export const clamp = (v, lo, hi) => Math.min(Math.max(v, lo), hi);

/** The fit zoom: the whole image in the view, never past `maxZoom` (native size by default). */
export const fitZoom = (W, H, vw, vh, maxZoom = 1) => Math.min(vw / W, vh / H, maxZoom);

/** Visible rectangle in image pixels: never scrolled past an edge. */
export function visibleRect(W, H, vw, vh, zoom, cx, cy) {
  const w = Math.min(W, vw / zoom);
  const h = Math.min(H, vh / zoom);
  return { x: clamp(cx - w / 2, 0, W - w), y: clamp(cy - h / 2, 0, H - h), width: w, height: h };
}

/** Half the leftover space on each side when the scaled image is smaller than the view. */
export function insets(W, H, vw, vh, zoom) {
  const left = Math.max(0, (vw - W * zoom) / 2);
  const top = Math.max(0, (vh - H * zoom) / 2);
  return { top, left, bottom: top, right: left };
}

/** The centre the view really shows after clamping. */
export function clampedCenter(W, H, vw, vh, zoom, cx, cy) {
  const r = visibleRect(W, H, vw, vh, zoom, cx, cy);
  return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
}

/** A movement (dx, dy) on a screen turned `degrees` clockwise, as a movement in the unturned view. */
export function turnedBack(dx, dy, degrees) {
  if (!degrees) return { x: dx, y: dy };
  const a = -degrees * Math.PI / 180;
  return { x: dx * Math.cos(a) - dy * Math.sin(a), y: dx * Math.sin(a) + dy * Math.cos(a) };
}

// Pointer gestures of the zoom view: drag pans (mouse, pen, touch), at fit a horizontal drag pages to the next
// image, two fingers pinch, the wheel zooms around the pointer, a double click or double tap zooms where it lands
// (via /zoomrect: 1.5× steps, or fit ↔ 100 % in toggle mode; Shift steps out, Alt or ⌘ flips the mode).
import * as api from './api.js';
import { state, set } from './state.js';

const FLICK = 0.5;                  // px/ms that turns a short swipe into a page change

export function installGestures(viewer) {
  const { root } = viewer;
  const pointers = new Map();
  let gesture = null;               // { kind: 'pan' | 'page' | 'pinch', ... }
  let lastTap = null;

  function point(e) {
    const r = root.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  }

  root.addEventListener('pointerdown', (e) => {
    if (e.button !== 0 && e.pointerType === 'mouse') return;
    const page = viewer.current();
    if (!page) return;
    // A first finger down while pointers are still held means their up or cancel never came (the element under
    // them went away, capture was lost): kept, they would turn every later swipe into a pinch.
    if (e.isPrimary) pointers.clear();
    try { root.setPointerCapture(e.pointerId); } catch { /* the pointer is already up: its events still come */ }
    pointers.set(e.pointerId, point(e));
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      gesture = { kind: 'pinch', dist: Math.hypot(a.x - b.x, a.y - b.y), zoom: page.zoom };
    } else if (pointers.size === 1) {
      const p = point(e);
      // At fit a drag pages, also on a page whose view has not come yet (it opens at fit) or that cannot be shown.
      const atFit = page.isFit || !page.ready || page.error;
      gesture = { kind: atFit && state.images.length > 1 ? 'page' : 'pan', start: p, last: p, t: performance.now(), moved: false, touch: e.pointerType !== 'mouse' };
    }
  });

  root.addEventListener('pointermove', (e) => {
    if (!pointers.has(e.pointerId) || !gesture) return;
    const p = point(e);
    pointers.set(e.pointerId, p);
    const page = viewer.current();
    if (gesture.kind === 'pinch' && pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      const dist = Math.hypot(a.x - b.x, a.y - b.y);
      const at = page.toLocal((a.x + b.x) / 2, (a.y + b.y) / 2);
      page.zoomAround(gesture.zoom * dist / gesture.dist, at.x, at.y);
    } else if (gesture.kind === 'pan') {
      const d = page.toLocalDelta(p.x - gesture.last.x, p.y - gesture.last.y);
      page.setView(page.zoom, page.cx - d.x / page.zoom, page.cy - d.y / page.zoom);
      gesture.last = p;
    } else if (gesture.kind === 'page') {
      let offset = p.x - gesture.start.x;
      if (state.index === 0 && offset > 0) offset /= 3;                          // resist past the ends
      if (state.index === state.images.length - 1 && offset < 0) offset /= 3;
      set({ dragOffset: offset });
      viewer.layoutStrip(false);
    }
    if (Math.hypot(p.x - gesture.start?.x, p.y - gesture.start?.y) > 4) gesture.moved = true;
  });

  /** A touch or pen tap (down and up in place, quickly); the second within 300 ms and 30 px is a double tap
   *  (dblclick covers the mouse). Swipes are never taps, so quick swipes in a row never zoom. */
  function tapped(g) {
    if (!g?.touch || g.moved || performance.now() - g.t > 300) { lastTap = null; return; }
    const now = performance.now();
    if (lastTap && now - lastTap.t < 300 && Math.hypot(g.start.x - lastTap.x, g.start.y - lastTap.y) < 30) {
      lastTap = null;
      doubleTap(g.start.x, g.start.y, false);
    } else {
      lastTap = { ...g.start, t: now };
    }
  }

  function endPointer(e) {
    if (!pointers.delete(e.pointerId)) return;
    if (e.type === 'pointerup' && pointers.size === 0) tapped(gesture);
    if (gesture?.kind === 'page') {
      const { w } = viewer.size();
      const offset = state.dragOffset;
      const velocity = offset / Math.max(1, performance.now() - gesture.t);
      let target = state.index;
      if (offset < -w / 2 || velocity < -FLICK) target = state.index + 1;
      if (offset > w / 2 || velocity > FLICK) target = state.index - 1;
      set({ dragOffset: 0 });
      if (target !== state.index && target >= 0 && target < state.images.length) viewer.goTo(target);
      else viewer.layoutStrip(true);
    }
    const rest = [...pointers.values()][0];
    gesture = pointers.size === 1 ? { kind: 'pan', start: rest, last: rest, t: performance.now() } : null;
  }
  root.addEventListener('pointerup', endPointer);
  root.addEventListener('pointercancel', endPointer);
  root.addEventListener('lostpointercapture', endPointer);

  root.addEventListener('wheel', (e) => {
    e.preventDefault();
    const page = viewer.current();
    if (!page) return;
    const p = page.toLocal(point(e).x, point(e).y);
    const scale = e.deltaMode === 1 ? 40 : 1;
    page.zoomAround(page.zoom * Math.exp(-e.deltaY * scale * 0.002), p.x, p.y);
  }, { passive: false });

  root.addEventListener('dblclick', (e) => {
    const p = point(e);
    doubleTap(p.x, p.y, e.shiftKey, e.altKey || e.metaKey);
  });

  /** Double tap at screen point (x, y) of the view: /zoomrect decides the zoom and centre. */
  async function doubleTap(x, y, out = false, flip = false) {
    const page = viewer.current();
    if (!page?.ready || page.error) return;
    const local = page.toLocal(x, y), at = page.toImage(local.x, local.y);
    const mode = state.toggleMode !== flip ? 'toggle' : 'step';
    const r = await api.doubleTap(page.image, page.vw, page.vh, page.isFit ? 'fit' : page.zoom, at.x, at.y,
      out ? 'step' : mode, out ? 1 / 1.5 : 1.5);
    page.apply(r.viewport);
  }
}

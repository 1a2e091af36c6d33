// The keyboard of the zoom view, and the `?` overlay that lists it. At fit ←/→ change image, as in every photo
// browser; zoomed in they pan. Keys work wherever focus is in the viewer except in the info panel's links.

/** The shortcuts, as the overlay lists them. */
export const SHORTCUTS = [
  ['← →', 'Previous / next image at fit; pan when zoomed in'],
  ['↑ ↓', 'Pan when zoomed in'],
  ['+  −', 'Zoom in / out'],
  ['0', 'Fit the whole image'],
  ['1', '100 %: one image pixel per screen pixel'],
  ['Page Up / Page Down', 'Previous / next image'],
  ['Double-click', 'Zoom in 1.5× (Shift: out); fit ↔ 100 % with the switch on'],
  ['Space', 'Slideshow: start / stop'],
  ['f', 'Full screen'],
  ['r  Shift+r', 'Turn the view 90° right / left'],
  ['s', 'Share: copy a link to this view'],
  ['d', 'Download the original or this view'],
  ['i', 'About this photo'],
  ['Escape', 'Close a panel, else back to the folder'],
  ['?', 'This list'],
];

/** The gestures, as the overlay lists them on touch screens. */
export const GESTURES = [
  ['Swipe left / right', 'Next / previous image (at fit)'],
  ['Pinch', 'Zoom in and out'],
  ['Drag', 'Move around when zoomed in'],
  ['Double-tap', 'Zoom in 1.5×; fit ↔ 100 % with the switch on'],
  ['▦', 'Back to the folder'],
  ['i', 'About this photo: details, download, rotate, full screen'],
  ['↗', 'Share a link to this view'],
  ['▶', 'Slideshow'],
];

export function installKeys(viewer) {
  const { root, info } = viewer;
  const help = document.getElementById('help');
  const helpButton = document.getElementById('show-help');
  const list = help.querySelector('dl');
  // A touch screen without a keyboard gets the gestures; one with a fine pointer too gets the keys as well.
  const touch = matchMedia('(pointer: coarse)').matches, keys = matchMedia('(any-pointer: fine)').matches || !touch;
  help.querySelector('h2').textContent = touch ? (keys ? 'Gestures and keys' : 'Gestures') : 'Keys';
  help.setAttribute('aria-label', help.querySelector('h2').textContent);
  list.replaceChildren(...[...(touch ? GESTURES : []), ...(keys ? SHORTCUTS : [])].flatMap(([name, what]) => {
    const dt = document.createElement('dt'); dt.textContent = name;
    const dd = document.createElement('dd'); dd.textContent = what;
    return [dt, dd];
  }));
  const showHelp = (open = help.hidden) => {
    help.hidden = !open;
    helpButton.setAttribute('aria-expanded', String(open));
    if (open) help.querySelector('button').focus(); else root.focus({ preventScroll: true });
  };
  helpButton.addEventListener('click', () => showHelp());
  help.querySelector('button').addEventListener('click', () => showHelp(false));

  // Focus rings only for keyboard users: a ring around the whole page on load says nothing to a mouse user.
  window.addEventListener('keydown', (e) => { if (e.key === 'Tab') document.body.classList.add('keyboard'); }, true);
  window.addEventListener('pointerdown', () => document.body.classList.remove('keyboard'), true);

  window.addEventListener('keydown', (e) => {
    if (e.key === '?' && viewer.mode === 'zoom') { e.preventDefault(); showHelp(); return; }
    if (!help.hidden) { if (e.key === 'Escape') { e.preventDefault(); showHelp(false); } return; }
    if (viewer.mode !== 'zoom' || e.ctrlKey || e.metaKey) return;
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLAnchorElement) return;
    if ((e.key === 'Enter' || e.key === ' ') && e.target instanceof HTMLButtonElement) return;
    const page = viewer.current();
    if (!page) return;
    if (e.key === 'Escape' && info.open) { e.preventDefault(); info.toggle(false); root.focus(); return; }
    if (e.key === 'Escape') { e.preventDefault(); viewer.showFolder(viewer.folderPath, page.image.id); return; }
    if (e.key === 'i' && !e.altKey) { e.preventDefault(); info.toggle(); return; }
    // A tenth of the screen a press, in the screen's directions (the view may be turned).
    const pan = (dx, dy) => {
      const d = page.toLocalDelta(dx * page.screen.w * 0.1, dy * page.screen.h * 0.1);
      page.setView(page.zoom, page.cx + d.x / page.zoom, page.cy + d.y / page.zoom);
    };
    const atFit = page.isFit || page.error;
    const handled = {
      ArrowLeft: () => (e.altKey || atFit ? viewer.goTo(viewer.index - 1) : pan(-1, 0)),
      ArrowRight: () => (e.altKey || atFit ? viewer.goTo(viewer.index + 1) : pan(1, 0)),
      ArrowUp: () => pan(0, -1),
      ArrowDown: () => pan(0, 1),
      '+': () => page.zoomAround(page.zoom * 1.5, page.vw / 2, page.vh / 2),
      '=': () => page.zoomAround(page.zoom * 1.5, page.vw / 2, page.vh / 2),
      '-': () => page.zoomAround(page.zoom / 1.5, page.vw / 2, page.vh / 2),
      0: () => viewer.fit(page),
      1: () => page.show(page.screen.w, page.screen.h, 1, page.cx, page.cy),
      r: () => viewer.rotate(page.rotation + 90),
      R: () => viewer.rotate(page.rotation - 90),
      PageUp: () => viewer.goTo(viewer.index - 1),
      PageDown: () => viewer.goTo(viewer.index + 1),
    }[e.key];
    if (!handled) return;
    e.preventDefault();
    if (document.activeElement !== root && !info.el.contains(document.activeElement)) root.focus({ preventScroll: true });
    handled();
  });
}

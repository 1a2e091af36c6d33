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
  ['i', 'About this photo'],
  ['Escape', 'Close a panel, else back to the folder'],
  ['?', 'This list'],
];

export function installKeys(viewer) {
  const { root, info } = viewer;
  const help = document.getElementById('help');
  const helpButton = document.getElementById('show-help');
  const list = help.querySelector('dl');
  list.replaceChildren(...SHORTCUTS.flatMap(([keys, what]) => {
    const dt = document.createElement('dt'); dt.textContent = keys;
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
    const stepX = page.vw * 0.1 / page.zoom, stepY = page.vh * 0.1 / page.zoom;
    const atFit = page.isFit || page.error;
    const handled = {
      ArrowLeft: () => (e.altKey || atFit ? viewer.goTo(viewer.index - 1) : page.setView(page.zoom, page.cx - stepX, page.cy)),
      ArrowRight: () => (e.altKey || atFit ? viewer.goTo(viewer.index + 1) : page.setView(page.zoom, page.cx + stepX, page.cy)),
      ArrowUp: () => page.setView(page.zoom, page.cx, page.cy - stepY),
      ArrowDown: () => page.setView(page.zoom, page.cx, page.cy + stepY),
      '+': () => page.zoomAround(page.zoom * 1.5, page.vw / 2, page.vh / 2),
      '=': () => page.zoomAround(page.zoom * 1.5, page.vw / 2, page.vh / 2),
      '-': () => page.zoomAround(page.zoom / 1.5, page.vw / 2, page.vh / 2),
      0: () => page.show(page.vw, page.vh, 'fit'),
      1: () => page.show(page.vw, page.vh, 1, page.cx, page.cy),
      PageUp: () => viewer.goTo(viewer.index - 1),
      PageDown: () => viewer.goTo(viewer.index + 1),
    }[e.key];
    if (!handled) return;
    e.preventDefault();
    if (document.activeElement !== root && !info.el.contains(document.activeElement)) root.focus({ preventScroll: true });
    handled();
  });
}

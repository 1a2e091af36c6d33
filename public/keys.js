// The keyboard: one table of every key the viewer answers (which keys, when the row applies, what each does, how
// the `?` list names it) and the one handler that reads it. At fit ←/→ change image, as in every photo browser;
// zoomed in they pan. In the grid the arrows move between cells and Backspace goes up a folder. Fields that take
// typing (the search box, the order menu) keep their keys to themselves.
import { state } from './state.js';

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
  ['Ruler button, then two taps', 'Measure a length (on images that say what a pixel measures)'],
];

const MODIFIERS = ['Shift', 'Control', 'Alt', 'Meta'];
const typing = (t) => t instanceof HTMLInputElement || t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement;

/** When a row applies, by name: the zoom view's keys (Alt allowed or not), the `?` key, the grid's keys. */
const WHEN = {
  zoom: (e, help) => state.mode === 'zoom' && help.hidden && !e.ctrlKey && !e.metaKey && !typing(e.target)
    && !(e.target instanceof HTMLAnchorElement) && !((e.key === 'Enter' || e.key === ' ') && e.target instanceof HTMLButtonElement),
  plain: (e, help) => WHEN.zoom(e, help) && !e.altKey,
  escape: (e) => state.mode === 'zoom' && !e.ctrlKey && !e.metaKey && !typing(e.target),
  help: (e) => state.mode === 'zoom',
  folder: (e) => state.mode === 'folder' && !e.ctrlKey && !e.metaKey,
};

/** `viewer`: the zoom view's calls; `panels`: the info panel, the chrome's (full screen, share, download
 *  menu), the slideshow's and the grid's. */
export function installKeys(viewer, { info, chrome, slideshow, folderView, measure }) {
  const { root } = viewer;
  const help = document.getElementById('help');
  const helpButton = document.getElementById('show-help');
  const showHelp = (open = help.hidden) => {
    help.hidden = !open;
    helpButton.setAttribute('aria-expanded', String(open));
    if (open) help.querySelector('button').focus(); else root.focus({ preventScroll: true });
  };
  /** A tenth of the screen a press, in the screen's directions (the view may be turned). */
  const pan = (page, dx, dy) => {
    const d = page.toLocalDelta(dx * page.screen.w * 0.1, dy * page.screen.h * 0.1);
    page.setView(page.zoom, page.cx + d.x / page.zoom, page.cy + d.y / page.zoom);
  };
  const atFit = (page) => page.isFit || page.error;
  const zoomBy = (page, factor) => page.zoomAround(page.zoom * factor, page.vw / 2, page.vh / 2);

  /** The table, in the order the `?` list shows its labelled rows. `focus`: the picture takes the keyboard first. */
  const TABLE = [
    { label: '← →', what: 'Previous / next image at fit; pan when zoomed in', when: 'zoom', focus: true, keys: {
      ArrowLeft: (e, p) => (e.altKey || atFit(p) ? viewer.goTo(state.index - 1) : pan(p, -1, 0)),
      ArrowRight: (e, p) => (e.altKey || atFit(p) ? viewer.goTo(state.index + 1) : pan(p, 1, 0)) } },
    { label: '↑ ↓', what: 'Pan when zoomed in', when: 'zoom', focus: true,
      keys: { ArrowUp: (e, p) => pan(p, 0, -1), ArrowDown: (e, p) => pan(p, 0, 1) } },
    { label: '+  −', what: 'Zoom in / out', when: 'zoom', focus: true,
      keys: { '+': (e, p) => zoomBy(p, 1.5), '=': (e, p) => zoomBy(p, 1.5), '-': (e, p) => zoomBy(p, 1 / 1.5) } },
    { label: '0', what: 'Fit the whole image', when: 'zoom', focus: true, keys: { 0: (e, p) => viewer.fit(p) } },
    { label: '1', what: '100 %: one image pixel per screen pixel (of a size-limited photo, one of its pixels per device pixel)',
      when: 'zoom', focus: true, keys: { 1: (e, p) => p.show(p.screen.w, p.screen.h, p.fullZoom, p.cx, p.cy) } },
    { label: 'Page Up / Page Down', what: 'Previous / next image', when: 'zoom', focus: true,
      keys: { PageUp: () => viewer.goTo(state.index - 1), PageDown: () => viewer.goTo(state.index + 1) } },
    { label: 'Double-click', what: 'Zoom in 1.5× (Shift: out); fit ↔ 100 % with the switch on', keys: {} },
    { label: 'Space', what: 'Slideshow: start / stop', when: 'zoom', keys: { ' ': () => slideshow.toggle() } },
    { label: 'f', what: 'Full screen', when: 'plain', keys: { f: () => chrome.toggleFullscreen() } },
    { label: 'r  Shift+r', what: 'Turn the view 90° right / left', when: 'zoom', focus: true,
      keys: { r: (e, p) => viewer.rotate(p.rotation + 90), R: (e, p) => viewer.rotate(p.rotation - 90) } },
    { label: 's', what: 'Share: copy a link to this view', when: 'plain', keys: { s: () => chrome.share() } },
    { label: 'd', what: 'Download the original or this view', when: 'plain', keys: { d: () => chrome.toggleMenu() } },
    { label: 'i', what: 'About this photo', when: 'plain', keys: { i: () => info.toggle() } },
    { label: 'm', what: 'Ruler, on images that say what a pixel measures: drag across what to measure (Escape ends it)',
      when: 'plain', keys: { m: () => measure.toggle() } },
    { label: 'Escape', what: 'Close a panel, else back to the folder or the results', when: 'escape', keys: { Escape: (e, p) => {
      if (!help.hidden) showHelp(false);
      else if (chrome.menuOpen) chrome.toggleMenu(false);
      else if (info.open) { info.toggle(false); root.focus(); }
      else if (measure.active) measure.toggle(false);
      else if (p) viewer.toGrid(p.image.id);
    } } },
    { label: '?', what: 'This list', when: 'help', keys: { '?': () => showHelp() } },
    { when: 'folder', keys: {
      Backspace: (e) => folderView.up(e), ArrowLeft: (e) => folderView.move(e), ArrowRight: (e) => folderView.move(e),
      ArrowUp: (e) => folderView.move(e), ArrowDown: (e) => folderView.move(e), Home: (e) => folderView.move(e),
      End: (e) => folderView.move(e) } },
  ];

  // A touch screen without a keyboard gets the gestures; one with a fine pointer too gets the keys as well.
  const touch = matchMedia('(pointer: coarse)').matches, keys = matchMedia('(any-pointer: fine)').matches || !touch;
  help.querySelector('h2').textContent = touch ? (keys ? 'Gestures and keys' : 'Gestures') : 'Keys';
  help.setAttribute('aria-label', help.querySelector('h2').textContent);
  const listed = TABLE.filter((row) => row.label).map((row) => [row.label, row.what]);
  help.querySelector('dl').replaceChildren(...[...(touch ? GESTURES : []), ...(keys ? listed : [])].flatMap(([name, what]) => {
    const dt = document.createElement('dt'); dt.textContent = name;
    const dd = document.createElement('dd'); dd.textContent = what;
    return [dt, dd];
  }));
  helpButton.addEventListener('click', () => showHelp());
  help.querySelector('button').addEventListener('click', () => showHelp(false));

  // Focus rings only for keyboard users: a ring around the whole page on load says nothing to a mouse user.
  window.addEventListener('keydown', (e) => { if (e.key === 'Tab') document.body.classList.add('keyboard'); }, true);
  window.addEventListener('pointerdown', () => document.body.classList.remove('keyboard'), true);

  window.addEventListener('keydown', (e) => {
    // A running slideshow stops at any key of the zoom view but its own.
    if (slideshow.running && e.key !== ' ' && !MODIFIERS.includes(e.key) && state.mode === 'zoom' && !typing(e.target)
        && !(e.key === 'Enter' && e.target instanceof HTMLButtonElement)) slideshow.stop();
    const page = viewer.current();
    const row = TABLE.find((r) => r.keys[e.key] && WHEN[r.when](e, help));
    if (!row || (row.when !== 'folder' && row.when !== 'help' && !page && e.key !== 'Escape')) return;
    if (row.when === 'folder' && !folderView.takes(e)) return;
    e.preventDefault();
    if (row.focus && document.activeElement !== root && !info.el.contains(document.activeElement)) root.focus({ preventScroll: true });
    row.keys[e.key](e, page);
  });
}

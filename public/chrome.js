// The controls around the photo: they fade after a while without pointer, touch or key and come back on any
// (never while a panel or menu is open, nor when the person chose to keep them); faded, they give their space
// to the photo, which re-fits around the same centre (style.css `idle`, screen-watch.js); full screen (the Fullscreen API, else the controls hidden until
// wanted); share (the system share sheet where there is one, else the address copied); download (the original
// file, or this view at screen size through the view-image API); the double-click and double-tap switch.
import * as api from './api.js';
import { state, set, on } from './state.js';

const IDLE = 2000;                  // ms without activity before the controls fade
const ZOOM_SHOWN = 1500;            // ms a phone shows the zoom pill after the zoom changed
const TOGGLE = 'tileserver.doubleTap';   // the double-click and double-tap switch, remembered
const CONTROLS = 'tileserver.controls';  // 'stay': the controls never fade (the Keys panel's setting), remembered

export function installChrome(viewer, { notice, info }) {
  const body = document.body;
  const el = (id) => document.getElementById(id);
  const fullscreenButtons = [el('fullscreen'), el('info-fullscreen')];
  const menu = el('download-menu'), downloadButton = el('download');
  const keep = el('keep-controls');
  let timer = 0;
  try { keep.checked = localStorage.getItem(CONTROLS) === 'stay'; } catch { /* storage off: they fade */ }
  keep.addEventListener('change', () => {
    try { localStorage.setItem(CONTROLS, keep.checked ? 'stay' : 'fade'); } catch { /* not remembered */ }
    wake();
  });

  /** Whether something is open that the person is reading or using, or they keep the controls: nothing fades. */
  const busy = () => keep.checked || state.mode !== 'zoom' || info.open || !el('help').hidden || !menu.hidden;

  /** Fades the controls or brings them back; the area the photo fits in changes with them, so the zoom view
   *  re-fits in the same frame (a `bars` event, screen-watch.js) rather than jumping first. */
  function fade(faded) {
    if (body.classList.contains('idle') === faded) return;
    body.classList.toggle('idle', faded);
    window.dispatchEvent(new Event('bars'));
  }
  function wake() {
    fade(false);
    clearTimeout(timer);
    timer = setTimeout(() => { if (!busy()) fade(true); else wake(); }, IDLE);
  }
  for (const type of ['pointermove', 'pointerdown', 'wheel', 'keydown', 'touchstart', 'focusin']) {
    window.addEventListener(type, wake, { capture: true, passive: true });
  }
  wake();

  // The double-click switch is in the top bar (wide screens) and in the keys panel (every screen): one state.
  const modeSwitches = [el('toggle-mode'), el('toggle-mode-panel')];
  for (const button of modeSwitches) button.addEventListener('click', () => set({ toggleMode: !state.toggleMode }));
  on('toggleMode', (isOn) => {
    try { localStorage.setItem(TOGGLE, isOn ? 'on' : 'off'); } catch { /* storage off: not remembered */ }
    for (const b of modeSwitches) {
      b.setAttribute('aria-pressed', String(isOn));
      b.querySelector('.state').textContent = isOn ? 'on' : 'off';
    }
  });
  try { set({ toggleMode: localStorage.getItem(TOGGLE) === 'on' }); } catch { /* storage off */ }

  const native = () => Boolean(document.fullscreenEnabled && document.documentElement.requestFullscreen);
  const isFull = () => Boolean(document.fullscreenElement) || body.classList.contains('pseudo-fullscreen');
  function showState() {
    for (const b of fullscreenButtons) {
      b.setAttribute('aria-pressed', String(isFull()));
      b.textContent = b.id === 'fullscreen' ? (isFull() ? '⤡' : '⤢') : isFull() ? 'Leave full screen' : 'Full screen';
    }
  }
  /** Enters or leaves full screen: the browser's own where it has one; else our controls hide until wanted
   *  (a phone's browser keeps its bars, which scrolling cannot hide on a page that never scrolls). */
  async function toggleFullscreen(on = !isFull()) {
    if (native()) {
      try {
        if (on && !document.fullscreenElement) await document.documentElement.requestFullscreen({ navigationUI: 'hide' });
        else if (!on && document.fullscreenElement) await document.exitFullscreen();
      } catch { body.classList.toggle('pseudo-fullscreen', on); }
    } else {
      body.classList.toggle('pseudo-fullscreen', on);
    }
    showState();
  }
  document.addEventListener('fullscreenchange', showState);
  for (const b of fullscreenButtons) b.addEventListener('click', () => toggleFullscreen());
  el('rotate').addEventListener('click', () => viewer.rotate((viewer.current()?.rotation ?? 0) + 90));

  /** The address of what is on screen now (the address bar lags the view by a moment). */
  function here() {
    const page = viewer.current();
    return page ? new URL(viewer.addressOf(page, true), location.href).href : location.href;
  }
  async function share() {
    const url = here(), title = document.title;
    if (navigator.share && matchMedia('(pointer: coarse)').matches) {
      try { await navigator.share({ title, url }); return; } catch (error) { if (error?.name === 'AbortError') return; }
    }
    try {
      await navigator.clipboard.writeText(url);
      notice.flash('Link copied: it opens this photo at this view.');
    } catch {
      notice.flash(`Copy this link: ${url}`);
    }
  }
  el('share').addEventListener('click', share);

  /** Points the download links at the photo on screen: its original (when the server offers it to this
   *  viewer) and this view at the size it has on screen. Called when the image changes and when a link is
   *  about to be used (the view moves too often to follow it on every frame). */
  function links() {
    const page = viewer.current();
    if (!page) return;
    const image = page.image, name = image.name ?? image.id;
    const original = image.download && !image.maxSize ? image.download : null;
    for (const a of [el('download-original'), el('info-original')]) {
      a.hidden = !original;
      if (original) a.href = original;
    }
    for (const a of [el('download-raw'), el('info-raw')]) {          // the shot's camera raw, where it has one
      a.hidden = !image.raw;
      if (image.raw) a.href = image.raw;
    }
    const view = page.error ? null : api.viewImageURL(image, page);
    for (const a of [el('download-view'), el('info-view')]) {
      a.hidden = !view;
      if (view) { a.href = view; a.download = `${name} (view).jpg`; }
    }
  }
  function toggleMenu(open = menu.hidden) {
    if (open) links();
    menu.hidden = !open;
    downloadButton.setAttribute('aria-expanded', String(open));
    if (open) menu.querySelector('a:not([hidden])')?.focus();
  }
  downloadButton.addEventListener('click', () => toggleMenu());
  menu.addEventListener('click', () => toggleMenu(false));
  // Before a link's own click acts: the view it saves is the one on screen now.
  for (const id of ['download-original', 'download-raw', 'download-view', 'info-original', 'info-raw', 'info-view']) el(id).addEventListener('click', links, true);
  window.addEventListener('pointerdown', (e) => { if (!menu.hidden && !menu.contains(e.target) && e.target !== downloadButton) toggleMenu(false); });


  /** On a phone the zoom pill yields the top bar to the title: it shows below the bar while the zoom changes,
   *  and for a moment after (style.css, `zoom-shown`). */
  let zoomTimer = 0;
  function showZoom() {
    body.classList.add('zoom-shown');
    clearTimeout(zoomTimer);
    zoomTimer = setTimeout(() => body.classList.remove('zoom-shown'), ZOOM_SHOWN);
  }

  return { links, toggleFullscreen, share, toggleMenu, showZoom, get menuOpen() { return !menu.hidden; } };
}

// The info panel: what the photo says about itself (title, caption, creator, rights, date, camera, place), from
// /api/images/{id}'s `metadata`. Opened and closed with its button or the `i` key; follows the page on screen.
// On a phone it is a sheet at the bottom, at most half the screen: the photo re-fits into the space above it
// (the zoom view's bottom moves up to the sheet's top), the gallery's dots hide, and a swipe down closes it.
import { length } from './measure.js';
import * as api from './api.js';

const PHONE = '(max-width: 480px)';
const CLOSING_SWIPE = 70;           // px a sheet is pulled down to close it

const FIELDS = [
  ['Creator', (m) => m.creators?.join('; ')],
  ['Date taken', (m) => m.dateTaken && formatDate(m.dateTaken)],
  ['Keywords', (m) => m.keywords?.join(', ')],
  ['Credit', (m) => m.credit],
  ['Copyright', (m) => m.copyright],
  ['Licence', (m) => m.licence],
  ['Camera', (m) => camera(m)],
  ['Lens', (m) => m.lens],
  ['Exposure', (m) => exposure(m)],
  ['Location', (m) => m.location && `${m.location.latitude.toFixed(5)}, ${m.location.longitude.toFixed(5)}`],
];

function camera(m) {
  if (!m.model) return m.make;
  return m.make && !m.model.toLowerCase().startsWith(m.make.toLowerCase().split(' ')[0]) ? `${m.make} ${m.model}` : m.model;
}

function exposure(m) {
  const parts = [];
  if (m.exposureTime) parts.push(`${m.exposureTime} s`);
  if (m.fNumber) parts.push(`f/${+m.fNumber.toFixed(1)}`);
  if (m.iso) parts.push(`ISO ${m.iso}`);
  if (m.focalLength) parts.push(`${+m.focalLength.toFixed(1)} mm`);
  return parts.join(' · ');
}

/** `2024-06-01T04:30:00+02:00` as the reader's locale writes a date and time, keeping the photo's own clock. */
function formatDate(text) {
  const [day, time = ''] = text.split('T');
  const date = new Date(`${day}T12:00:00Z`);
  const shown = Number.isNaN(date.getTime()) ? day : date.toLocaleDateString(undefined, { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
  return time ? `${shown}, ${time.slice(0, 5)}${time.length > 8 ? ` (UTC${time.slice(8)})` : ''}` : shown;
}

export class InfoPanel {
  constructor(el, button) {
    this.el = el;
    this.button = button;
    this.id = null;
    this.asked = null;
    button.addEventListener('click', () => this.toggle());
    el.querySelector('.close').addEventListener('click', () => this.toggle(false));
    new ResizeObserver(() => this.place()).observe(el);
    matchMedia(PHONE).addEventListener('change', () => this.place());
    this.swipeToClose();
  }

  get open() { return !this.el.hidden; }

  /** Opens (or closes) the panel on the image shown now. */
  toggle(open = !this.open) {
    this.el.hidden = !open;
    this.button.setAttribute('aria-expanded', String(open));
    if (open && this.id) this.load(this.id);
    this.place();
  }

  /** On a phone, an open sheet takes its height from the zoom view's bottom (`--sheet`, style.css), so the photo
   *  re-fits above it (screen-watch.js hears the view's new size). */
  place() {
    const sheet = this.open && matchMedia(PHONE).matches;
    document.body.classList.toggle('sheet-open', sheet);
    if (sheet) document.body.style.setProperty('--sheet', `${this.el.offsetHeight}px`);
  }

  /** A touch that pulls the sheet down (from its top when scrolled up) moves it along; far enough, it closes. */
  swipeToClose() {
    let y0 = null, pulled = 0;
    this.el.addEventListener('touchstart', (e) => {
      y0 = e.touches.length === 1 && this.el.scrollTop <= 0 && matchMedia(PHONE).matches ? e.touches[0].clientY : null;
      pulled = 0;
    }, { passive: true });
    this.el.addEventListener('touchmove', (e) => {
      if (y0 === null) return;
      pulled = e.touches[0].clientY - y0;
      if (pulled <= 0) { this.el.style.transform = ''; return; }
      e.preventDefault();                                  // the sheet follows the finger instead of scrolling
      this.el.style.transform = `translateY(${pulled}px)`;
    }, { passive: false });
    const end = () => {
      if (y0 === null) return;
      y0 = null;
      this.el.style.transform = '';
      if (pulled > CLOSING_SWIPE) this.toggle(false);
    };
    this.el.addEventListener('touchend', end);
    this.el.addEventListener('touchcancel', end);
  }

  /** The details line: what the viewer is showing of the page now (zoom, level, device pixels). */
  showing(page) {
    this.page = page;
    const line = this.el.querySelector('.showing');
    if (!line || page.error) return;
    line.textContent = `Showing ${(page.zoom * 100).toPrecision(3)} % of native size: level ${page.level} of ${page.image.maxLevel}, ` +
      `${page.image.tileSize} px tiles, ${api.pixelRatio()} device pixels per pixel.`;
  }

  /** The image on screen is now `id`: the panel shows it when open, and loads it when opened. */
  follow(id) {
    if (id === this.id && this.asked === id) return;
    this.id = id;
    if (this.open) this.load(id);
  }

  async load(id) {
    if (this.asked === id) return;
    this.asked = id;
    const body = this.el.querySelector('.body');
    body.replaceChildren(line('Loading…'));
    try {
      const entry = await api.image(id);
      if (this.asked === id) this.render(entry);
    } catch {
      if (this.asked === id) { body.replaceChildren(line('No information: the image could not be read.')); this.asked = null; }
    }
  }

  render(entry) {
    const m = entry.metadata ?? {};
    const title = this.el.querySelector('h2');
    title.textContent = m.title ?? entry.name ?? entry.id.slice(entry.id.lastIndexOf('/') + 1);
    const body = this.el.querySelector('.body');
    const parts = [];
    if (m.description) { const p = document.createElement('p'); p.className = 'caption'; p.textContent = m.description; parts.push(p); }
    const list = document.createElement('dl');
    for (const [label, value] of FIELDS) {
      const text = value(m);
      if (!text) continue;
      const dt = document.createElement('dt'); dt.textContent = label;
      const dd = document.createElement('dd');
      if (label === 'Licence' && /^https?:\/\//.test(text)) dd.append(link(text, text));
      else if (label === 'Location') dd.append(link(mapURL(m.location), text));   // a map of the place, no script of ours
      else dd.textContent = text;
      list.append(dt, dd);
    }
    if (entry.file) {                 // the file's own name, whatever name the photo is shown by
      const dt = document.createElement('dt'); dt.textContent = 'File';
      const dd = document.createElement('dd'); dd.textContent = entry.file;
      list.append(dt, dd);
    }
    const dt = document.createElement('dt'); dt.textContent = 'Size';
    const dd = document.createElement('dd'); dd.textContent = `${entry.width.toLocaleString()} × ${entry.height.toLocaleString()} px`;
    list.append(dt, dd);
    // A slide's published facts (an allow-list, server-side), or what a pixel measures where the file says.
    const slide = entry.slide, mpp = slide?.micronsPerPixel;
    for (const [label, value] of [['Scanner', slide?.vendor], ['Objective', slide?.objectivePower && `${slide.objectivePower}×`],
      ['Pixel size', mpp ? `${length(mpp.x / 1000)} × ${length(mpp.y / 1000)}` : entry.physical && length(entry.physical.scale)],
      ['Real size', entry.physical && `${length(entry.width * entry.physical.scale)} × ${length(entry.height * entry.physical.scale)}`],
      ['Scanned', slide?.scanDate]]) {
      if (!value) continue;
      const term = document.createElement('dt'); term.textContent = label;
      const detail = document.createElement('dd'); detail.textContent = value;
      list.append(term, detail);
    }
    for (const problem of [entry.warning, entry.error]) {      // a file cut short, shown in part; a broken file
      if (!problem) continue;
      const dt = document.createElement('dt'); dt.textContent = 'Problem';
      const dd = document.createElement('dd'); dd.textContent = problem;
      list.append(dt, dd);
    }
    parts.push(list);
    if (!Object.keys(m).length) parts.push(line('The file carries no title, caption, rights or camera data.'));
    const showing = line('');
    showing.classList.add('showing');
    parts.push(showing);
    body.replaceChildren(...parts);
    if (this.page?.image.id === entry.id) this.showing(this.page);
  }
}

/** A link that opens in a new tab and tells the other site nothing of where it came from. */
function link(href, text) {
  const a = document.createElement('a');
  a.href = href; a.textContent = text; a.rel = 'noopener noreferrer'; a.target = '_blank';
  return a;
}

/** OpenStreetMap at the photo's place, with a marker. */
function mapURL({ latitude, longitude }) {
  const [lat, lon] = [latitude.toFixed(5), longitude.toFixed(5)];
  return `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=15/${lat}/${lon}`;
}

function line(text) {
  const p = document.createElement('p');
  p.className = 'note';
  p.textContent = text;
  return p;
}

// The info panel: what the photo says about itself (title, caption, creator, rights, date, camera, place), from
// /api/images/{id}'s `metadata`. Opened and closed with its button or the `i` key; follows the page on screen.
import * as api from './api.js';

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
  }

  get open() { return !this.el.hidden; }

  /** Opens (or closes) the panel on the image shown now. */
  toggle(open = !this.open) {
    this.el.hidden = !open;
    this.button.setAttribute('aria-expanded', String(open));
    if (open && this.id) this.load(this.id);
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
    const dt = document.createElement('dt'); dt.textContent = 'Size';
    const dd = document.createElement('dd'); dd.textContent = `${entry.width.toLocaleString()} × ${entry.height.toLocaleString()} px`;
    list.append(dt, dd);
    if (entry.error) {
      const dt = document.createElement('dt'); dt.textContent = 'Problem';
      const dd = document.createElement('dd'); dd.textContent = entry.error;
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

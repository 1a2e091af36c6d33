// Measuring, on images whose file says what a pixel measures (`physical` in the listing: a slide's microns per
// pixel, a scan's resolution): a scale bar of a round length (µm or mm) that follows the zoom, and a ruler. The
// ruler is drawn with the ruler button (beside the scale bar) or `m`: a drag on a desktop, two taps on a phone; its ends stay on the image
// through zooms, pans and turns (they are drawn in the image's own coordinates), and its length can be copied.
const NS = 'http://www.w3.org/2000/svg';
const BAR = 110;                    // CSS pixels the scale bar aims at (it is at most this long)

/** `mm` as people write it: µm below a millimetre, mm from there, at most four significant digits. */
export function length(mm) {
  const [value, unit] = mm < 1 ? [mm * 1000, 'µm'] : [mm, 'mm'];
  return `${value.toLocaleString('en', { maximumSignificantDigits: 4 })} ${unit}`;
}

/** The longest round length (1, 2 or 5 × a power of ten, in mm) at most `mm`. */
export function roundLength(mm) {
  const base = 10 ** Math.floor(Math.log10(mm));
  return [5, 2, 1].map((m) => m * base).find((l) => l <= mm * (1 + 1e-9)) ?? base;
}

export function installMeasure(viewer, { notice }) {
  const el = (id) => document.getElementById(id);
  const scaleBar = el('scale-bar'), bar = scaleBar.querySelector('.bar'), said = scaleBar.querySelector('.length');
  const button = el('measure'), label = el('ruler-label'), text = label.querySelector('.length');
  let active = false, ruler = null;           // ruler: { id, a, b } in image pixels; b null after one tap
  let shown = null;                           // the page measured now

  const scale = (page) => page?.image.physical?.scale ?? null;

  /** The ruler's line in the page's stage: image coordinates, so it follows every zoom, pan and turn. */
  function drawn(page) {
    let svg = page.stage.querySelector('svg.ruler');
    if (!svg) {
      svg = document.createElementNS(NS, 'svg');
      svg.setAttribute('class', 'ruler');
      svg.setAttribute('width', page.image.width);
      svg.setAttribute('height', page.image.height);
      for (const part of ['line', 'circle', 'circle']) svg.append(document.createElementNS(NS, part));
    }
    page.stage.append(svg);         // last, and above every tile layer (their z-index is their level + 1)
    return svg;
  }

  function place(page) {
    for (const svg of document.querySelectorAll('svg.ruler')) if (!page || !page.stage.contains(svg) || !ruler) svg.remove();
    label.hidden = true;
    if (!page || !ruler || ruler.id !== page.image.id) return;
    const svg = drawn(page), [line, start, end] = svg.children;
    const b = ruler.b ?? ruler.a, r = 5 / page.zoom;
    line.setAttribute('x1', ruler.a.x); line.setAttribute('y1', ruler.a.y);
    line.setAttribute('x2', b.x); line.setAttribute('y2', b.y);
    for (const [dot, p] of [[start, ruler.a], [end, b]]) { dot.setAttribute('cx', p.x); dot.setAttribute('cy', p.y); dot.setAttribute('r', r); }
    end.toggleAttribute('hidden', !ruler.b);   // an SVG element has no `hidden` property
    if (!ruler.b) return;
    const mm = Math.hypot(ruler.b.x - ruler.a.x, ruler.b.y - ruler.a.y) * scale(page);
    text.textContent = length(mm);
    label.dataset.mm = String(mm);
    label.hidden = false;
    const box = line.getBoundingClientRect();
    label.style.left = `${Math.min(innerWidth - label.offsetWidth - 8, Math.max(8, box.left + box.width / 2 - label.offsetWidth / 2))}px`;
    label.style.top = `${Math.min(innerHeight - label.offsetHeight - 8, Math.max(8, box.top + box.height / 2 + 14))}px`;
  }

  /** Turns the ruler on or off (off drops the one drawn). */
  function toggle(on = !active) {
    active = on && Boolean(scale(shown));
    document.body.classList.toggle('measuring', active);
    button.setAttribute('aria-pressed', String(active));
    if (!active) { ruler = null; place(shown); }
    else notice.flash(matchMedia('(pointer: coarse)').matches ? 'Ruler: tap where it starts, then where it ends.' : 'Ruler: drag across what to measure.');
  }

  /** The image point under a pointer event, on the page shown. */
  function imagePoint(e) {
    const r = viewer.root.getBoundingClientRect(), v = shown.toLocal(e.clientX - r.left, e.clientY - r.top);
    const p = shown.toImage(v.x, v.y);
    return { x: Math.max(0, Math.min(shown.image.width, p.x)), y: Math.max(0, Math.min(shown.image.height, p.y)) };
  }
  let dragging = null;
  const ours = (e) => active && shown?.ready && viewer.root.contains(e.target);
  window.addEventListener('pointerdown', (e) => {
    if (!ours(e)) return;
    e.stopPropagation(); e.preventDefault();
    const p = imagePoint(e);
    if (e.pointerType === 'touch') {        // two taps: the first starts a ruler, the second ends it
      ruler = ruler && !ruler.b && ruler.id === shown.image.id ? { ...ruler, b: p } : { id: shown.image.id, a: p, b: null };
    } else {
      ruler = { id: shown.image.id, a: p, b: p };
      dragging = e.pointerId;
    }
    place(shown);
  }, true);
  window.addEventListener('pointermove', (e) => {
    if (!ours(e) || dragging !== e.pointerId) return;
    e.stopPropagation();
    ruler = { ...ruler, b: imagePoint(e) };
    place(shown);
  }, true);
  for (const type of ['pointerup', 'pointercancel']) {
    window.addEventListener(type, (e) => { if (dragging === e.pointerId) { dragging = null; e.stopPropagation(); } }, true);
  }
  for (const type of ['click', 'dblclick', 'touchstart']) {
    window.addEventListener(type, (e) => { if (ours(e)) e.stopPropagation(); }, { capture: true, passive: true });
  }
  button.addEventListener('click', () => toggle());
  label.querySelector('button').addEventListener('click', async () => {
    // The clipboard may ask the person first, or never answer: after a second the length is shown to copy by hand.
    const later = new Promise((_, fail) => setTimeout(fail, 1000));
    try { await Promise.race([navigator.clipboard.writeText(text.textContent), later]); notice.flash(`Copied: ${text.textContent}`); }
    catch { notice.flash(`Length: ${text.textContent}`); }
  });

  /** Follows the page on screen: the scale bar for its zoom, the ruler's place, the button where it applies. */
  function update(page, zoomShown) {
    if (page !== shown) { if (active) toggle(false); shown = page; }
    const mmPerPixel = zoomShown && page?.ready && !page.error ? scale(page) : null;
    scaleBar.hidden = !mmPerPixel;
    button.hidden = !mmPerPixel;
    if (!mmPerPixel) { place(null); return; }
    const perCSSPixel = mmPerPixel / page.zoom, mm = roundLength(perCSSPixel * BAR);
    bar.style.width = `${mm / perCSSPixel}px`;
    said.textContent = length(mm);
    place(page);
  }

  return { update, toggle, get active() { return active; } };
}

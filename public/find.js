// Finding photos: the folder view's search box (titles, captions, keywords and creators across the library, as
// the server's index has them) and its order (name, date taken, date added: remembered, and the zoom view pages
// in the same order). Results are a grid like a folder's; a photo opened from them opens in its own folder.
import { on, set } from './state.js';

const STORE = 'tileserver.sort';
const DELAY = 300;                  // ms after the last key before the search is asked

export function installFind({ search, leave, reorder }) {
  const box = document.getElementById('search');
  const order = document.getElementById('sort');
  try { order.value = localStorage.getItem(STORE) ?? 'name'; } catch { /* storage off */ }
  if (!order.value) order.value = 'name';
  set({ sort: order.value });
  let timer = 0;

  box.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const q = box.value.trim();
      if (q) search(q);
      else leave();
    }, DELAY);
  });
  box.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); box.value = ''; clearTimeout(timer); leave(); }
    if (e.key === 'Enter') { clearTimeout(timer); const q = box.value.trim(); if (q) search(q); }
    if (e.key === 'ArrowDown') { e.preventDefault(); document.querySelector('#grid .cell')?.focus(); }
    e.stopPropagation();          // typing is not grid navigation
  });
  order.addEventListener('change', () => {
    set({ sort: order.value });
    try { localStorage.setItem(STORE, order.value); } catch { /* storage off */ }
    reorder();
  });
  order.addEventListener('keydown', (e) => e.stopPropagation());

  // The box shows the words whose results are on screen (an address with `?q=`), or is emptied for a folder.
  on('search', (q) => { if (document.activeElement !== box) box.value = q; });
}

// The viewer's shared state: every field any module reads or changes is declared here, with what it means.
// Modules read `state.x`, change fields with `set({ x })` (an undeclared field is an error: the object is sealed)
// and hear of changes with `on('x', fn)`. Nothing else is written from one module onto another's objects.

export const state = Object.seal({
  /** 'zoom' (one image at a time) or 'folder' (a grid: a folder's or a search's). */
  mode: 'zoom',
  /** The folder whose images the zoom view pages through ('' for the top), and its name as written on disk. */
  folderPath: '',
  folderName: '',
  /** The words whose results the zoom view pages through instead of a folder (an album opened from a search's
   *  grid), or ''. The folder fields keep the folder the search was made from. */
  album: '',
  /** The images the zoom view pages through (the folder's, or the album's), in order, and which one is shown. */
  images: [],
  index: 0,
  /** Pixels the strip of pages is dragged aside while a swipe pages (0 at rest). */
  dragOffset: 0,
  /** Double-click and double-tap go fit ↔ 100 % instead of 1.5× steps. */
  toggleMode: false,
  /** The order listings come in: 'name', 'taken' or 'added' (the folder view's menu, remembered). */
  sort: 'name',
  /** The words whose results the grid shows; '' when it shows a folder. */
  search: '',
});

const listeners = new Map();

/** Changes the fields of `changes`, then tells each field's listeners whose value changed. */
export function set(changes) {
  const changed = [];
  for (const [field, value] of Object.entries(changes)) {
    if (!(field in state)) throw new Error(`the viewer's state has no field “${field}”`);
    if (state[field] !== value) { state[field] = value; changed.push(field); }
  }
  for (const field of changed) for (const listener of listeners.get(field) ?? []) listener(state[field]);
}

/** Calls `listener(value)` whenever `field` changes. */
export function on(field, listener) {
  if (!(field in state)) throw new Error(`the viewer's state has no field “${field}”`);
  listeners.set(field, [...(listeners.get(field) ?? []), listener]);
}

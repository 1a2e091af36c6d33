// The address bar: what `#folder=…` or `#image=…[&zoom=…&cx=…&cy=…]` asks for, and the address of a view.
// At fit the address is `#image=ID` alone, so a reload or a shared link opens at fit, not at a rounded zoom.

/** What the address says: a folder, or an image with an optional view. */
export function parseHash(hash = location.hash) {
  const q = new URLSearchParams(hash.slice(1));
  const zoom = Number(q.get('zoom')), cx = Number(q.get('cx')), cy = Number(q.get('cy'));
  return {
    folder: q.get('folder'),
    image: q.get('image'),
    view: zoom > 0 && Number.isFinite(cx) && Number.isFinite(cy) ? { zoom, cx, cy } : null,
  };
}

/** The address of image `id` at fit, or zoomed in on `view` ({ zoom, cx, cy }). */
export function imageHash(id, view = null) {
  const hash = `#image=${encodeURIComponent(id)}`;
  return view ? `${hash}&zoom=${+view.zoom.toPrecision(8)}&cx=${+view.cx.toFixed(2)}&cy=${+view.cy.toFixed(2)}` : hash;
}

/** The address of the folder view of `path`. */
export const folderHash = (path) => `#folder=${encodeURIComponent(path)}`;

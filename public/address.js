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

/** The address of `page`'s view. */
export function imageHash(page) {
  let hash = `#image=${encodeURIComponent(page.image.id)}`;
  if (!page.isFit && !page.error) hash += `&zoom=${+page.zoom.toPrecision(8)}&cx=${+page.cx.toFixed(2)}&cy=${+page.cy.toFixed(2)}`;
  return hash;
}

/** The address of the folder view of `path`. */
export const folderHash = (path) => `#folder=${encodeURIComponent(path)}`;

// The address bar: what `?folder=…` or `?image=…[&zoom=…&cx=…&cy=…][&rotate=90|180|270]` asks for, and the
// address of a view. An image opened from a search's results carries the words (`&q=…`): the zoom view then
// pages through the results, and a reload keeps that.
// The query is what the server reads: for `?image=ID` at fit it writes the thumbnail into the page, so the first
// frame has the picture. The older `#folder=…` and `#image=…` links still work; when the fragment names
// something it wins (it is what a link within the page or an old bookmark says), and the viewer then writes the
// address back in the query form. At fit the address is `?image=ID` alone, so a reload or a shared link opens at
// fit, not at a rounded zoom.

/** What the address says: a folder, or an image with an optional view. */
export function parseAddress(where = location) {
  const fragment = new URLSearchParams(where.hash.slice(1));
  const q = fragment.has('image') || fragment.has('folder') ? fragment : new URLSearchParams(where.search);
  const zoom = Number(q.get('zoom')), cx = Number(q.get('cx')), cy = Number(q.get('cy')), turn = Number(q.get('rotate'));
  return {
    folder: q.get('folder'),
    image: q.get('image'),
    q: q.get('q'),
    view: zoom > 0 && Number.isFinite(cx) && Number.isFinite(cy) ? { zoom, cx, cy } : null,
    rotation: [90, 180, 270].includes(turn) ? turn : 0,
  };
}

/** The address of image `id` at fit, or zoomed in on `view` ({ zoom, cx, cy }), turned by `rotation`°, paged
 *  among the results of the words `album` when it is not empty. */
export function imageAddress(id, view = null, rotation = 0, album = '') {
  let address = `?image=${encodeURIComponent(id)}`;
  if (view) address += `&zoom=${+view.zoom.toPrecision(8)}&cx=${+view.cx.toFixed(2)}&cy=${+view.cy.toFixed(2)}`;
  if (rotation) address += `&rotate=${rotation}`;
  return album ? `${address}&q=${encodeURIComponent(album)}` : address;
}

/** The address of the folder view of `path`. */
export const folderAddress = (path) => `?folder=${encodeURIComponent(path)}`;

/** Whether the address bar shows `address` already (and nothing after it). */
export const showing = (address) => location.search + location.hash === address;

// The fitted thumbnail index.html puts on screen before the modules run (so the whole picture appears at once).
/** The fitted thumbnail index.html puts on screen before the modules run gives way to `page` once the page's
 *  own picture can be painted (at once for a folder, a broken file or another image). Only the first page may
 *  reuse its URL: a later page of the same id (the file replaced) takes the listing's versioned thumbnail. */
export function retireFirstPicture(page = null) {
  window.firstPicture = null;
  const picture = document.getElementById('first-picture');
  if (!picture) return;
  const gone = () => picture.remove();
  if (page?.base && !page.error && picture.dataset.image === page.image.id) page.base.decode().then(gone, gone);
  else gone();
}

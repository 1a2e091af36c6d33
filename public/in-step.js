// Keeping the screen in step with the server: a lost server is said and the view kept; when it answers again,
// what the address bar says is put back; and the folder on screen is listed again every few seconds (a 304 while
// nothing changed), so files added, removed or replaced show without a reload.
import * as api from './api.js';
import { connection } from './connection.js';
import { state } from './state.js';

const POLL = 2000;                  // ms between looks at the folder's listing

/** `viewer`: the zoom view's calls; the rest, the viewer's parts this uses. `opened()`: whether the first view is
 *  in (the poll waits for it). */
export function installInStep(viewer, { browse, folderView, notice, adopt, onPageChange, ratioChanged, goTo, opened }) {
  // A lost server: say so, keep the view; when it answers again, put back exactly what the address bar says.
  connection.onChange((online) => {
    document.body.classList.toggle('offline', !online);
    if (!online) { notice.say('Reconnecting to the server…', 'offline'); return; }
    notice.clear('offline');
    notice.announce('Connected again.');
    const p = state.mode === 'zoom' ? viewer.current() : null;
    if (p && !p.error) {
      const { w, h } = viewer.size();
      p.show(w, h, p.isFit ? 'fit' : p.zoom, p.cx, p.cy).then(() => onPageChange(p));
    } else if (state.mode === 'folder') {
      if (browse.found) browse.showSearch(browse.found.search, false);
      else browse.showFolder(state.folderPath);
    }
  });

  // New, removed and replaced files: the folder on screen is listed again every few seconds (304 until it changes).
  setInterval(async () => {
    if (document.hidden || !opened()) return;          // the first view is still being worked out
    ratioChanged();
    const asked = state.folderPath, ticket = browse.ticket;
    if ((browse.found && state.mode === 'folder') || state.album) return;    // search results are not polled
    try {
      const listing = browse.remember(await api.folder(asked, null, state.sort));
      // The person moved on while it was asked (Backspace, a link): this answer is about a folder no longer shown.
      if (state.folderPath !== asked || ticket !== browse.ticket) return;
      if (state.mode === 'folder') { adopt(listing); folderView.show(listing); return; }
      const p = viewer.current();
      if (adopt(listing)) await goTo(state.index, p?.ready && !p.isFit ? { zoom: p.zoom, cx: p.cx, cy: p.cy } : null, false);
    } catch { /* the server is restarting, or the folder went away: the next look will tell */ }
  }, POLL);
}

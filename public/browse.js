// The viewer's grids: a folder's view and a search's results. Each view asked for takes a ticket, so a slow
// answer never draws over a later one (Backspace twice, Back); listings are remembered, so with the server
// away a folder still shows as it was last listed.
import * as api from './api.js';
import { folderAddress, imageAddress, parseAddress, showing } from './address.js';
import { state, set } from './state.js';

/** `folderView` draws; `adopt(listing)` makes a folder the one the zoom view pages through; `leaveZoom()` puts
 *  the zoom view away; `follow(address)` shows what an address names; `showAccount(listing)` the account buttons.
 *  The search box hears which words are shown from the state's `search`. */
export function installBrowse({ folderView, notice, adopt, leaveZoom, follow, showAccount }) {
  const listings = new Map();
  const browse = {
    /** Bumped by every grid asked for. */
    ticket: 0,
    /** The search whose results the grid shows (a listing, `search` its words), or null for a folder. */
    found: null,

    /** Keeps `listing` as its folder's last listing; returns it. */
    remember(listing) { listings.set(listing.folder, listing); return listing; },

    /** The grid of what the words `q` find across the library; `push`: a new history entry; `focusID`: the
     *  cell to focus (the photo just left). */
    async showSearch(q, push = !browse.found, focusID = null) {
      const ticket = ++browse.ticket;
      let listing;
      try { listing = await api.search(q, state.sort); } catch { return; }
      if (ticket !== browse.ticket) return;
      browse.found = listing;
      set({ mode: 'folder', search: q });
      leaveZoom();
      const address = `?q=${encodeURIComponent(q)}`;
      if (!showing(address)) history[push ? 'pushState' : 'replaceState'](null, '', address);
      showAccount(listing);
      document.title = `Search: ${q}`;
      folderView.show(listing, focusID);
      notice.clear('missing');
    },

    /** Opens image `id` from the search results, paged among them (an album; a new history entry: Back returns
     *  to the grid). */
    openFound(id) {
      history.pushState(null, '', imageAddress(id, null, 0, browse.found.search));
      return follow(parseAddress());
    },

    /** The folder view of `path`; `focusID` is the cell to focus (the image just left, the folder just left).
     *  A folder that is not there says so and shows the nearest one that is; a lost server shows the folder as
     *  last listed, or keeps what is shown. */
    async showFolder(path, focusID = null, missing = null) {
      const ticket = ++browse.ticket;
      let listing;
      try {
        listing = await api.folder(path, (partial) => {
          if (state.mode === 'folder' && folderView.path === path && ticket === browse.ticket) folderView.show(partial);
        }, state.sort);
      } catch (error) {
        if (ticket !== browse.ticket) return;
        if (error instanceof api.APIError) return path ? browse.showFolder(api.folderOf(path), null, missing ?? path) : undefined;
        listing = listings.get(path);
        if (!listing) return;
      }
      browse.remember(listing);
      if (ticket !== browse.ticket) return;                  // a later step (Backspace twice, Back) went elsewhere
      browse.found = null;
      const wasFolder = state.mode === 'folder' && state.folderPath === path;
      set({ mode: 'folder', search: '' });
      leaveZoom();
      // A new history entry only when coming from elsewhere: not for the address the bar already says (a link,
      // a reload, Back), nor the first view of a bare `/`, nor the folder shown instead of one that is not there.
      const address = folderAddress(path), said = parseAddress().folder === path;
      if (!showing(address)) history[wasFolder || said || !(location.search || location.hash) || missing ? 'replaceState' : 'pushState'](null, '', address);
      adopt(listing);
      document.title = listing.name || 'All images';
      folderView.show(listing, wasFolder ? null : focusID);
      if (missing) notice.say(`There is no folder “${missing}”. Showing ${listing.name ? `“${listing.name}”` : 'all images'}.`, 'missing');
      else notice.clear('missing');
    },
  };
  return browse;
}

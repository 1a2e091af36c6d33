// Signing in from the viewer, as a IIIF Authorization Flow 2.0 client of our own services: for a tiered or
// restricted image, the probe service says what this browser may see; "Sign in" opens the access service (the
// sign-in page) in a window, which closes itself once signed in; the access-token service, framed here, posts a
// token to this page only (postMessage to our origin); the probe asked again with it says 200, and the view is
// shown again at full resolution (tiles come with the session cookie the sign-in set). The account buttons of the
// folder grid and the top bar sign in without an image, and show who is signed in; signing out posts to the
// logout service, and the view falls back to what everyone may see.
const enc = encodeURIComponent;

/** What the probe service says of image `id` (200: may see it all; 401, 403: not all), with `token` if given. */
export async function probe(id, token) {
  const response = await fetch(`/auth/probe/${enc(id)}`, token ? { headers: { Authorization: `Bearer ${token}` } } : {});
  return response.ok ? response.json() : { status: response.status };
}

/** A token from the access-token service, through a hidden frame; null when the browser is not signed in. */
export function accessToken(timeout = 10000) {
  return new Promise((resolve) => {
    const messageId = Math.random().toString(36).slice(2);
    const frame = document.createElement('iframe');
    frame.hidden = true;
    frame.title = 'sign-in token';
    const done = (token) => { window.removeEventListener('message', heard); clearTimeout(timer); frame.remove(); resolve(token); };
    const heard = (event) => {
      if (event.origin !== location.origin || event.data?.messageId !== messageId) return;
      done(event.data.type === 'AuthAccessToken2' ? event.data.accessToken : null);
    };
    const timer = setTimeout(() => done(null), timeout);
    window.addEventListener('message', heard);
    frame.src = `/auth/token?messageId=${messageId}&origin=${enc(location.origin)}`;
    document.body.append(frame);
  });
}

/** Opens the access service in a window and waits for it to close; then asks for a token and probes image `id`
 *  again. True when this browser may now see the whole image; else what the probe says is missing, or false. */
export async function signIn(id) {
  const win = window.open('/auth/login?return=%2Fauth%2Fdone', 'tileserver-sign-in', 'popup,width=420,height=560');
  if (!win) { location.assign(`/auth/login?return=${enc(location.pathname + location.search + location.hash)}`); return false; }
  await new Promise((closed) => { const t = setInterval(() => { if (win.closed) { clearInterval(t); closed(); } }, 250); });
  const token = await accessToken();
  if (!token) return false;
  const result = await probe(id, token);
  return result.status === 200 || (Object.values(result.note ?? {})[0]?.[0] ?? false);
}

/** Ends this browser's session (the logout service). */
export async function signOut() {
  await fetch('/auth/logout', { method: 'POST' });
}

/** A "Sign in" prompt for image `image` (an entry of the listing) in `box`, or nothing for an image everyone may
 *  see whole. `onSignedIn` runs once the probe says the whole image may be shown. */
export function prompt(image, onSignedIn) {
  if (!image.locked && !image.maxSize) return null;
  const box = document.createElement('div');
  box.className = image.locked ? 'locked' : 'sign-in-bar';
  box.setAttribute('role', image.locked ? 'alert' : 'status');
  const text = document.createElement('p');
  // A signed-in user outside the image's group is told who they are and which group it is for (`note`).
  const note = image.note ? `${image.note.charAt(0).toUpperCase()}${image.note.slice(1)}.` : null;
  text.textContent = image.locked ? note ?? `${image.name ?? image.id} is for signed-in viewers.` : 'Sign in to see more.';
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'pill sign-in';
  button.textContent = note ? 'Sign in as someone else' : 'Sign in';
  button.addEventListener('click', async (event) => {
    event.stopPropagation();
    button.disabled = true;
    const answer = await signIn(image.id).catch(() => false);
    button.disabled = false;
    if (answer === true) onSignedIn();
    else text.textContent = typeof answer === 'string' ? answer : 'Not signed in, or this account may not see it.';
  });
  for (const type of ['pointerdown', 'mousedown', 'touchstart', 'dblclick', 'wheel']) box.addEventListener(type, (e) => e.stopPropagation());
  box.append(text, button);
  return box;
}

/** "Sign in to see more" on a tiered image's page: offered once, the first time the view passes the image's
 *  public size (`update(upscale)`: device pixels per public pixel), hidden again once back within. */
export class SignInOffer {
  /** The offer for `image` in `page` (its element), or null for an image everyone sees whole. */
  static of(image, page) {
    const bar = prompt(image, () => location.reload());
    return bar ? new SignInOffer(bar, page) : null;
  }

  constructor(bar, page) {
    this.bar = bar;
    this.bar.hidden = true;
    this.offered = false;
    page.append(bar);
  }

  update(upscale) {
    const past = upscale > 1.001;     // past a rounding of the zoom
    if (past && !this.offered) { this.offered = true; this.bar.hidden = false; }
    else if (!past) this.bar.hidden = true;
  }
}

/** Signs in from a button that names no image (the folder grid's, the top bar's): the access service in a window;
 *  once it closes with a session made, the page is shown again as the signed-in user sees it. */
async function signInHere() {
  const win = window.open('/auth/login?return=%2Fauth%2Fdone', 'tileserver-sign-in', 'popup,width=420,height=560');
  if (!win) { location.assign(`/auth/login?return=${enc(location.pathname + location.search + location.hash)}`); return; }
  await new Promise((closed) => { const t = setInterval(() => { if (win.closed) { clearInterval(t); closed(); } }, 250); });
  if (await accessToken()) location.reload();
}

/** The account buttons, in the folder grid and the photo view's top bar: "Sign in" where the server has users
 *  and no one is signed in, the name and "Sign out" while someone is (listings say which: `user`, `login`). */
const accountButtons = [document.getElementById('account'), document.getElementById('grid-account')];
let signedIn = null;
export function showAccount(listing) {
  const user = listing?.user ?? null, login = Boolean(listing?.login);
  signedIn = user;
  for (const button of accountButtons) {
    button.hidden = !user && !login;
    button.querySelector('.who').textContent = user ?? '';
    button.querySelector('.act').textContent = user ? 'Sign out' : 'Sign in';
    button.title = user ? `Signed in as ${user}: sign out` : 'Sign in to see what your account may see';
    button.setAttribute('aria-label', user ? `Signed in as ${user}. Sign out` : 'Sign in');
  }
}
for (const button of accountButtons) {
  button.addEventListener('click', async () => {
    if (signedIn) { await signOut(); location.reload(); } else await signInHere();
  });
}

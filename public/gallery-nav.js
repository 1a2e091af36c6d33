// The gallery bar at the bottom of the zoom view: ‹ and ›, the slideshow's ▶, and a dot per image of the folder
// (a counter, "3 / 10", instead when the dots would not all fit on the screen, or there are too many).
const MAX_DOTS = 24;
const DOT = 44;                     // px a dot takes (its touch target)

export class GalleryNav {
  /** `goTo(i)` shows image `i`. */
  constructor(goTo) {
    this.goTo = goTo;
    this.dots = document.getElementById('dots');
    this.counter = document.getElementById('counter');
    this.prev = document.getElementById('prev');
    this.next = document.getElementById('next');
  }

  /** The dots of the folder's `images`, each named for screen readers. */
  draw(images) {
    this.images = images;
    const room = window.innerWidth - 16 - 8 - 3 * DOT;        // the bar's margins and padding, ‹ › ▶
    const many = images.length > MAX_DOTS || images.length * DOT > room;
    this.dots.hidden = many;
    this.counter.hidden = !many;
    this.dots.replaceChildren(...(many ? [] : images.map((image, i) => {
      const dot = document.createElement('button');
      dot.type = 'button';
      dot.setAttribute('aria-label', `Show ${image.name ?? image.id}`);
      dot.addEventListener('click', () => this.goTo(i));
      return dot;
    })));
    document.body.classList.toggle('single', images.length < 2);
    if (!this.watching) {
      this.watching = true;
      window.addEventListener('resize', () => { if (this.images) { this.draw(this.images); this.mark(this.index ?? 0, this.images.length); } });
    }
  }

  /** Marks image `index` of `count` as the one shown. */
  mark(index, count) {
    this.index = index;
    [...this.dots.children].forEach((d, k) => d.setAttribute('aria-current', k === index ? 'true' : 'false'));
    this.counter.textContent = `${(index + 1).toLocaleString()} / ${count.toLocaleString()}`;
    this.prev.disabled = index === 0;
    this.next.disabled = index === count - 1;
  }
}

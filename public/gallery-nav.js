// The gallery bar at the bottom of the zoom view: ‹ and ›, and a dot per image of the folder (a counter instead
// when there are too many for dots).
const MAX_DOTS = 24;

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
    const many = images.length > MAX_DOTS;
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
  }

  /** Marks image `index` of `count` as the one shown. */
  mark(index, count) {
    [...this.dots.children].forEach((d, k) => d.setAttribute('aria-current', k === index ? 'true' : 'false'));
    this.counter.textContent = `${(index + 1).toLocaleString()} / ${count.toLocaleString()}`;
    this.prev.disabled = index === 0;
    this.next.disabled = index === count - 1;
  }
}

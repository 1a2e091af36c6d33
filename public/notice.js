// Honest messages over the view (no such image or folder, reconnecting to the server), and what screen readers
// are told: image changes and these messages, never each zoom step.
export class Notice {
  constructor() {
    this.el = document.getElementById('notice');
    this.text = document.getElementById('notice-text');
    this.announcer = document.getElementById('announce');
    this.about = null;              // what the message is about: 'offline', 'missing', or null when none is shown
  }

  /** Shows `text` about `about` and reads it out. */
  say(text, about) {
    this.about = about;
    this.el.hidden = false;
    this.text.textContent = text;
    this.announce(text);
  }

  /** Hides the message if it is about `about`. */
  clear(about) {
    if (this.about !== about) return;
    this.about = null;
    this.el.hidden = true;
    this.text.textContent = '';
  }

  /** Shows `text` for a few seconds (a confirmation: "Link copied"). */
  flash(text) {
    this.say(text, 'flash');
    clearTimeout(this.flashTimer);
    this.flashTimer = setTimeout(() => this.clear('flash'), 4000);
  }

  announce(text) { this.announcer.textContent = text; }
}

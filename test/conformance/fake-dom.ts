/**
 * Just enough DOM to run the HTML report's script in a test (no browser here): elements with
 * children, text, attributes and click/input listeners, found by id or by attribute selectors.
 */
export class FakeElement {
  children: FakeElement[] = [];
  parent?: FakeElement;
  attributes: Record<string, string> = {};
  className = '';
  value = '';
  private text = '';
  private readonly listeners: Record<string, Array<(e: { target: FakeElement }) => void>> = {};

  constructor(readonly tagName: string) {}

  get textContent(): string {
    return this.tagName === '#text' || this.children.length === 0 ? this.text : this.children.map((c) => c.textContent).join('');
  }
  set textContent(v: string) {
    this.children = [];
    this.text = v;
  }
  get firstChild(): FakeElement | undefined {
    return this.children[0];
  }
  appendChild(child: FakeElement): FakeElement {
    child.parent = this;
    this.children.push(child);
    return child;
  }
  removeChild(child: FakeElement): void {
    this.children = this.children.filter((c) => c !== child);
  }
  setAttribute(name: string, value: string): void {
    this.attributes[name] = String(value);
  }
  getAttribute(name: string): string | null {
    return this.attributes[name] ?? null;
  }
  addEventListener(type: string, listener: (e: { target: FakeElement }) => void): void {
    (this.listeners[type] ??= []).push(listener);
  }
  dispatch(type: string): void {
    for (const l of this.listeners[type] ?? []) l({ target: this });
  }
  scrollIntoView(): void {}
  descendants(): FakeElement[] {
    return this.children.flatMap((c) => [c, ...c.descendants()]);
  }
}

/** A document whose elements are given up front (the static page) by id and by attribute. */
export function fakeDocument(staticElements: FakeElement[]) {
  const byId = (id: string) => staticElements.find((e) => e.attributes.id === id);
  return {
    getElementById: (id: string) => byId(id) ?? null,
    querySelectorAll: (selector: string) => {
      const m = /^(?:(\w+))?\[([\w-]+)\]$/.exec(selector);
      if (!m) throw new Error(`fake DOM: unsupported selector ${selector}`);
      return staticElements.filter((e) => (!m[1] || e.tagName === m[1]) && e.attributes[m[2] as string] !== undefined);
    },
    createElement: (tag: string) => new FakeElement(tag),
    createTextNode: (text: string) => {
      const t = new FakeElement('#text');
      t.textContent = text;
      return t;
    },
  };
}

/**
 * Builds the static elements of a rendered report page: every element with an id, a
 * data-severity, data-check or data-mode attribute (enough for the report's script).
 */
export function staticElementsOf(html: string): FakeElement[] {
  const out: FakeElement[] = [];
  const tag = /<(\w+)\s([^>]*)>/g;
  for (let m = tag.exec(html); m; m = tag.exec(html)) {
    const attrs = m[2] ?? '';
    if (!/\b(id|data-severity|data-check|data-mode)=/.test(attrs)) continue;
    const el = new FakeElement(m[1] ?? 'div');
    for (const a of attrs.matchAll(/([\w-]+)="([^"]*)"/g))
      el.setAttribute(
        a[1] ?? '',
        (a[2] ?? '')
          .replace(/&quot;/g, '"')
          .replace(/&#39;/g, "'")
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&amp;/g, '&'),
      );
    if (el.attributes.id === 'report-data') {
      const start = (m.index ?? 0) + m[0].length;
      el.textContent = html.slice(start, html.indexOf('</script>', start));
    }
    out.push(el);
  }
  return out;
}

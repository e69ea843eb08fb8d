// @ts-check
/* global buildAccess */
/**
 * The conformance report page's own script: the findings filter and the access explorer, reading
 * the page's data block and writing only through textContent. Inlined after access-explorer.js
 * (which defines `buildAccess`); the page's Content-Security-Policy allows exactly these bytes by
 * their SHA-256. Plain, type-checked JavaScript: see access-explorer.js for why.
 */
(function () {
  'use strict';

  /** @typedef {{ check: string, severity: string, message: string, evidence: { url?: string, field?: string, value?: unknown } }} Finding */

  /**
   * @template {HTMLElement} [T=HTMLElement]
   * @param {string} id an element the page's template always renders
   * @returns {T}
   */
  function byId(id) {
    const node = document.getElementById(id);
    if (!node) throw new Error('report page: no #' + id);
    return /** @type {T} */ (node);
  }

  /** @type {{ findings: Finding[], access: AccessGraph }} */
  const data = JSON.parse(byId('report-data').textContent || 'null');

  /**
   * @param {string} tag
   * @param {{ text?: string, className?: string, onclick?: () => void } | null} props
   * @param {Array<Node | string | null>} [children]
   */
  function el(tag, props, children) {
    const node = document.createElement(tag);
    if (props) {
      if (props.text !== undefined) node.textContent = props.text;
      if (props.className !== undefined) node.className = props.className;
      if (props.onclick) node.addEventListener('click', props.onclick);
    }
    (children || []).forEach((c) => {
      if (c) node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    });
    return node;
  }
  /** @param {Node} node */
  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }
  /** @param {string} sev */
  const badge = (sev) => el('span', { className: 'badge ' + sev, text: sev.toUpperCase() });
  /** @param {string} selector @param {(node: Element) => void} each */
  const forAll = (selector, each) => Array.prototype.forEach.call(document.querySelectorAll(selector), each);
  /** @param {number} n @param {string} word */
  const plural = (n, word) => n + ' ' + word + (n === 1 ? '' : 's');

  // Findings: filter by severity, by check and by text.
  const state = { severity: 'bad', check: '', text: '' };
  const findingsBody = byId('findings-body');
  const findingsNote = byId('findings-note');
  /** @type {HTMLInputElement} */
  const findingsSearch = byId('findings-search');

  /** @param {Finding} f */
  function evidenceOf(f) {
    const ev = f.evidence;
    return [ev.url, ev.field ? 'field ' + ev.field : '', ev.value !== undefined ? 'value ' + ev.value : ''].filter(Boolean).join(' \u00b7 ');
  }
  /** @param {Finding} f @param {string} ev @param {string} text */
  function matches(f, ev, text) {
    if (state.severity === 'bad' && f.severity === 'pass') return false;
    if (state.severity !== 'bad' && state.severity !== 'all' && f.severity !== state.severity) return false;
    if (state.check && f.check !== state.check) return false;
    return !text || (f.check + ' ' + f.message + ' ' + ev).toLowerCase().indexOf(text) >= 0;
  }
  function renderFindings() {
    clear(findingsBody);
    const text = state.text.toLowerCase();
    let shown = 0;
    let matched = 0;
    data.findings.forEach((f) => {
      const ev = evidenceOf(f);
      if (!matches(f, ev, text)) return;
      matched++;
      if (shown >= 500) return;
      shown++;
      findingsBody.appendChild(
        el('tr', null, [
          el('td', null, [badge(f.severity)]),
          el('td', null, [el('code', { text: f.check })]),
          el('td', null, [el('div', { text: f.message }), ev ? el('div', { className: 'evidence mono', text: ev }) : null]),
        ]),
      );
    });
    findingsNote.textContent =
      plural(matched, 'finding') + (matched > shown ? ' (first ' + shown + ' shown)' : '') + (state.check ? ' for ' + state.check : '');
  }
  /** @param {(button: Element) => boolean} isOn */
  function markSeverity(isOn) {
    forAll('[data-severity]', (o) => (o.className = isOn(o) ? 'on' : ''));
  }
  forAll('[data-severity]', (b) =>
    b.addEventListener('click', () => {
      state.severity = b.getAttribute('data-severity') || 'bad';
      markSeverity((o) => o === b);
      renderFindings();
    }),
  );
  findingsSearch.addEventListener('input', () => {
    state.text = findingsSearch.value;
    renderFindings();
  });
  byId('findings-clear').addEventListener('click', () => {
    state.check = '';
    renderFindings();
  });
  forAll('tr[data-check]', (row) =>
    row.addEventListener('click', () => {
      state.check = row.getAttribute('data-check') || '';
      state.severity = 'all';
      markSeverity((o) => o.getAttribute('data-severity') === 'all');
      renderFindings();
      byId('findings').scrollIntoView();
    }),
  );
  renderFindings();

  // Access explorer: pick a file or a user, see the other side.
  const access = buildAccess(data.access);
  let mode = 'file';
  const choices = byId('explorer-choices');
  const result = byId('explorer-result');
  /** @type {HTMLInputElement} */
  const search = byId('explorer-search');
  /** @typedef {AccessGraph['users'][number]} User */
  /** @typedef {AccessGraph['files'][number]} File */
  /** @param {User} u */
  const userLabel = (u) => (u.email || '(no email) ' + u.id) + (u.name ? ' \u2014 ' + u.name : '');
  /** @param {File} f */
  const fileLabel = (f) => (f.name || f.id) + (f.status === 'deleted' ? ' (deleted)' : '');

  function renderChoices() {
    clear(choices);
    const q = search.value.toLowerCase();
    /** @type {Array<User | File>} */
    const list = mode === 'file' ? data.access.files : data.access.users;
    let n = 0;
    for (let i = 0; i < list.length && n < 100; i++) {
      const item = list[i];
      const label = mode === 'file' ? fileLabel(/** @type {File} */ (item)) : userLabel(/** @type {User} */ (item));
      if (q && (label + ' ' + item.id).toLowerCase().indexOf(q) < 0) continue;
      n++;
      choices.appendChild(el('button', { onclick: () => show(i) }, [el('div', { text: label }), el('div', { className: 'muted mono', text: item.id })]));
    }
    if (n === 0) choices.appendChild(el('div', { className: 'muted', text: 'Nothing matches.' }));
  }
  /** @param {{ user: number, via: string }} entry */
  function userItem(entry) {
    const u = data.access.users[entry.user];
    return el('li', null, [userLabel(u) + ' ', el('span', { className: 'muted', text: 'via ' + entry.via })]);
  }
  /** @param {Array<string | null>[]} entries */
  const listed = (entries) => entries.map((p) => p.map(String).join(' ')).join(', ');
  /** @param {Node[]} nodes */
  const showAll = (nodes) => nodes.forEach((node) => result.appendChild(node));

  /** @param {number} index */
  function showFile(index) {
    const f = data.access.files[index];
    const a = access.whoCanSee(index);
    showAll([
      el('h3', { text: fileLabel(f) }),
      el('div', { className: 'muted mono', text: f.id + (f.mime ? ' \u00b7 ' + f.mime : '') }),
      el('p', { text: (a.everyone ? 'Everyone (GROUP *): ' : '') + plural(a.users.length, 'active user') + ' can see this file.' }),
      el('ul', { className: 'plain' }, a.users.map(userItem)),
    ]);
    if (a.inactive.length) {
      showAll([
        el('p', { className: 'muted', text: a.inactive.length + ' inactive user(s) reached by the entries (not counted):' }),
        el('ul', { className: 'plain' }, a.inactive.map(userItem)),
      ]);
    }
    if (a.unresolved.length) {
      showAll([el('p', { className: 'muted', text: 'Entries naming no served user or group: ' + listed(a.unresolved.map((p) => [p[0], p[1]])) })]);
    }
    if (a.ignored.length) showAll([el('p', { className: 'muted', text: 'Entries the platform ignores: ' + listed(a.ignored) })]);
  }
  /** @param {number} index */
  function showUser(index) {
    const u = data.access.users[index];
    const files = access.whatCanSee(index);
    const visible = u.active
      ? plural(files.length, 'file') + ' visible.'
      : 'Inactive: sees nothing. Entries would grant these ' + files.length + ' file(s) on reactivation:';
    showAll([
      el('h3', { text: userLabel(u) }),
      el('div', { className: 'muted mono', text: u.id + (u.active ? '' : ' \u00b7 INACTIVE') }),
      el('p', { text: visible }),
      el(
        'ul',
        { className: 'plain' },
        files.map((entry) => el('li', null, [fileLabel(data.access.files[entry.file]) + ' ', el('span', { className: 'muted', text: 'via ' + entry.via })])),
      ),
    ]);
  }
  /** @param {number} index */
  function show(index) {
    clear(result);
    if (mode === 'file') showFile(index);
    else showUser(index);
  }
  forAll('[data-mode]', (b) =>
    b.addEventListener('click', () => {
      mode = b.getAttribute('data-mode') || 'file';
      forAll('[data-mode]', (o) => (o.className = o === b ? 'on' : ''));
      search.value = '';
      clear(result);
      renderChoices();
    }),
  );
  search.addEventListener('input', renderChoices);
  renderChoices();
})();

import { ACCESS_EXPLORER_CORE } from '../access/access-explorer-script';

/**
 * The report page's own script: the findings filter and the access explorer, reading the page's
 * data block and writing only through textContent.
 */
export const REPORT_PAGE_SCRIPT = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('report-data').textContent);
  ${ACCESS_EXPLORER_CORE}
  function el(tag, props, children) {
    var node = document.createElement(tag);
    if (props) Object.keys(props).forEach(function (k) {
      if (k === 'text') node.textContent = props[k];
      else if (k === 'className') node.className = props[k];
      else if (k === 'onclick') node.addEventListener('click', props[k]);
      else node.setAttribute(k, props[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function badge(sev) { return el('span', { className: 'badge ' + sev, text: sev.toUpperCase() }); }

  // Findings: filter by severity, by check and by text.
  var state = { severity: 'bad', check: '', text: '' };
  var findingsBody = document.getElementById('findings-body');
  var findingsNote = document.getElementById('findings-note');
  function renderFindings() {
    clear(findingsBody);
    var text = state.text.toLowerCase();
    var shown = 0, matched = 0;
    data.findings.forEach(function (f) {
      if (state.severity === 'bad' && f.severity === 'pass') return;
      if (state.severity !== 'bad' && state.severity !== 'all' && f.severity !== state.severity) return;
      if (state.check && f.check !== state.check) return;
      var ev = [f.evidence.url, f.evidence.field ? 'field ' + f.evidence.field : '', f.evidence.value !== undefined ? 'value ' + f.evidence.value : ''].filter(Boolean).join(' \\u00b7 ');
      if (text && (f.check + ' ' + f.message + ' ' + ev).toLowerCase().indexOf(text) < 0) return;
      matched++;
      if (shown >= 500) return;
      shown++;
      findingsBody.appendChild(el('tr', null, [
        el('td', null, [badge(f.severity)]),
        el('td', null, [el('code', { text: f.check })]),
        el('td', null, [el('div', { text: f.message }), ev ? el('div', { className: 'evidence mono', text: ev }) : null]),
      ]));
    });
    findingsNote.textContent = matched + ' finding' + (matched === 1 ? '' : 's') + (matched > shown ? ' (first ' + shown + ' shown)' : '') + (state.check ? ' for ' + state.check : '');
  }
  Array.prototype.forEach.call(document.querySelectorAll('[data-severity]'), function (b) {
    b.addEventListener('click', function () {
      state.severity = b.getAttribute('data-severity');
      Array.prototype.forEach.call(document.querySelectorAll('[data-severity]'), function (o) { o.className = o === b ? 'on' : ''; });
      renderFindings();
    });
  });
  document.getElementById('findings-search').addEventListener('input', function (e) { state.text = e.target.value; renderFindings(); });
  document.getElementById('findings-clear').addEventListener('click', function () { state.check = ''; renderFindings(); });
  Array.prototype.forEach.call(document.querySelectorAll('tr[data-check]'), function (row) {
    row.addEventListener('click', function () {
      state.check = row.getAttribute('data-check');
      state.severity = 'all';
      Array.prototype.forEach.call(document.querySelectorAll('[data-severity]'), function (o) { o.className = o.getAttribute('data-severity') === 'all' ? 'on' : ''; });
      renderFindings();
      document.getElementById('findings').scrollIntoView();
    });
  });
  renderFindings();

  // Access explorer: pick a file or a user, see the other side.
  var access = buildAccess(data.access);
  var mode = 'file';
  var choices = document.getElementById('explorer-choices');
  var result = document.getElementById('explorer-result');
  var search = document.getElementById('explorer-search');
  function userLabel(u) { return (u.email || '(no email) ' + u.id) + (u.name ? ' \\u2014 ' + u.name : ''); }
  function fileLabel(f) { return (f.name || f.id) + (f.status === 'deleted' ? ' (deleted)' : ''); }
  function renderChoices() {
    clear(choices);
    var q = search.value.toLowerCase();
    var list = mode === 'file' ? data.access.files : data.access.users;
    var n = 0;
    for (var i = 0; i < list.length && n < 100; i++) {
      var item = list[i];
      var label = mode === 'file' ? fileLabel(item) : userLabel(item);
      if (q && (label + ' ' + item.id).toLowerCase().indexOf(q) < 0) continue;
      n++;
      (function (index, text, id) {
        choices.appendChild(el('button', { onclick: function () { show(index); } }, [el('div', { text: text }), el('div', { className: 'muted mono', text: id })]));
      })(i, label, item.id);
    }
    if (n === 0) choices.appendChild(el('div', { className: 'muted', text: 'Nothing matches.' }));
  }
  function userItem(entry) {
    var u = data.access.users[entry.user];
    return el('li', null, [userLabel(u) + ' ', el('span', { className: 'muted', text: 'via ' + entry.via })]);
  }
  function show(index) {
    clear(result);
    if (mode === 'file') {
      var f = data.access.files[index];
      var a = access.whoCanSee(index);
      result.appendChild(el('h3', { text: fileLabel(f) }));
      result.appendChild(el('div', { className: 'muted mono', text: f.id + (f.mime ? ' \\u00b7 ' + f.mime : '') }));
      result.appendChild(el('p', { text: (a.everyone ? 'Everyone (GROUP *): ' : '') + a.users.length + ' active user' + (a.users.length === 1 ? '' : 's') + ' can see this file.' }));
      result.appendChild(el('ul', { className: 'plain' }, a.users.map(userItem)));
      if (a.inactive.length) {
        result.appendChild(el('p', { className: 'muted', text: a.inactive.length + ' inactive user(s) reached by the entries (not counted):' }));
        result.appendChild(el('ul', { className: 'plain' }, a.inactive.map(userItem)));
      }
      if (a.unresolved.length) result.appendChild(el('p', { className: 'muted', text: 'Entries naming no served user or group: ' + a.unresolved.map(function (p) { return p[0] + ' ' + p[1]; }).join(', ') }));
      if (a.ignored.length) result.appendChild(el('p', { className: 'muted', text: 'Entries the platform ignores: ' + a.ignored.map(function (p) { return p[0] + ' ' + p[1] + ' ' + p[2]; }).join(', ') }));
    } else {
      var u = data.access.users[index];
      var files = access.whatCanSee(index);
      result.appendChild(el('h3', { text: userLabel(u) }));
      result.appendChild(el('div', { className: 'muted mono', text: u.id + (u.active ? '' : ' \\u00b7 INACTIVE') }));
      result.appendChild(el('p', { text: u.active ? files.length + ' file' + (files.length === 1 ? '' : 's') + ' visible.' : 'Inactive: sees nothing. Entries would grant these ' + files.length + ' file(s) on reactivation:' }));
      result.appendChild(el('ul', { className: 'plain' }, files.map(function (entry) {
        var file = data.access.files[entry.file];
        return el('li', null, [fileLabel(file) + ' ', el('span', { className: 'muted', text: 'via ' + entry.via })]);
      })));
    }
  }
  Array.prototype.forEach.call(document.querySelectorAll('[data-mode]'), function (b) {
    b.addEventListener('click', function () {
      mode = b.getAttribute('data-mode');
      Array.prototype.forEach.call(document.querySelectorAll('[data-mode]'), function (o) { o.className = o === b ? 'on' : ''; });
      search.value = '';
      clear(result);
      renderChoices();
    });
  });
  search.addEventListener('input', renderChoices);
  renderChoices();
})();
`;

import { ACCESS_EXPLORER_CORE } from './access-explorer-script';
import type { ConformanceReport } from './conformance-report';
import { formatBytes, formatCount, formatDuration } from './format-numbers';

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/** JSON safe inside a <script> element: nothing in it can close the element or start markup. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** What the page's script needs: findings, statistics and the access graph (compact). */
function pageData(report: ConformanceReport) {
  const { crawl } = report;
  return {
    findings: report.findings,
    checks: report.checks,
    stats: report.stats,
    access: {
      users: crawl.users.map((u) => ({ id: u.id, email: str(u.email) ?? null, name: str(u.fullName) ?? null, active: !(typeof u.state === 'string' && u.state.toLowerCase() === 'inactive') })),
      groups: crawl.groups.map((g) => ({ id: g.id, name: str(g.name) ?? null, members: (g.members?.entries ?? []).map((m) => [m.type, m.id]) })),
      files: crawl.files.map((f) => ({
        id: f.listing.id,
        name: str(f.listing.name) ?? null,
        status: str(f.listing.status) ?? null,
        mime: str(f.listing.mimeType) ?? null,
        permissions: (f.permissions?.entries ?? []).map((p) => [p.type, p.id, p.action ?? null]),
      })),
    },
  };
}

const CSS = `
:root { --fail: #b42318; --warn: #b54708; --pass: #067647; --ink: #1d2939; --muted: #667085; --line: #eaecf0; --bg: #f9fafb; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
header, main { max-width: 1200px; margin: 0 auto; padding: 16px 24px; }
header { border-bottom: 1px solid var(--line); background: #fff; max-width: none; }
header .inner { max-width: 1152px; margin: 0 auto; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 10px; }
.muted { color: var(--muted); }
.verdict { display: inline-block; padding: 2px 10px; border-radius: 999px; color: #fff; font-weight: 600; margin-left: 8px; }
.verdict.fail, .badge.fail { background: var(--fail); } .verdict.pass, .badge.pass { background: var(--pass); } .badge.warn { background: var(--warn); }
.badge { display: inline-block; min-width: 44px; text-align: center; padding: 1px 6px; border-radius: 4px; color: #fff; font-size: 12px; font-weight: 600; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 10px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; }
.card b { display: block; font-size: 18px; }
table { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid var(--line); }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #f2f4f7; font-weight: 600; font-size: 12px; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.clickable { cursor: pointer; } tr.clickable:hover { background: #f2f4f7; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; word-break: break-all; }
.toolbar { display: flex; gap: 8px; flex-wrap: wrap; align-items: center; margin-bottom: 8px; }
button, input, select { font: inherit; }
button { border: 1px solid #d0d5dd; background: #fff; border-radius: 6px; padding: 3px 10px; cursor: pointer; }
button.on { background: var(--ink); color: #fff; border-color: var(--ink); }
input[type=search] { border: 1px solid #d0d5dd; border-radius: 6px; padding: 4px 8px; min-width: 280px; }
.evidence { color: var(--muted); }
.explorer { display: grid; grid-template-columns: minmax(260px, 1fr) 2fr; gap: 12px; }
.panel { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 10px; min-height: 120px; }
.choices button { display: block; width: 100%; text-align: left; margin: 2px 0; border: none; border-radius: 4px; }
.choices button:hover { background: #f2f4f7; }
ul.plain { list-style: none; padding: 0; margin: 6px 0; } ul.plain li { padding: 2px 0; border-bottom: 1px dashed var(--line); }
footer { max-width: 1200px; margin: 24px auto; padding: 0 24px 24px; color: var(--muted); font-size: 12px; }
`;

const SCRIPT = `
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

function card(label: string, value: string): string {
  return `<div class="card"><span class="muted">${escapeHtml(label)}</span><b>${escapeHtml(value)}</b></div>`;
}

/**
 * A single-file HTML report a person can open anywhere: no external assets (inline CSS and script,
 * and a Content-Security-Policy that forbids loading anything), every value from the gateway
 * escaped (static text with `escapeHtml`, data as script-safe JSON rendered through textContent).
 */
export function renderHtmlReport(report: ConformanceReport): string {
  const s = report.summary;
  const st = report.stats;
  const verdict = s.ok ? 'pass' : 'fail';
  const kinds = Object.entries(st.latencyByKind);
  const checkRows = report.checks
    .map(
      (c) =>
        `<tr class="clickable" data-check="${escapeHtml(c.check)}"><td><span class="badge ${c.severity}">${c.severity.toUpperCase()}</span></td><td><code>${escapeHtml(c.check)}</code></td><td>${escapeHtml(c.title)}${c.rule ? `<div class="muted">${escapeHtml(c.rule)}</div>` : ''}</td>` +
        `<td class="num">${c.counts.fail}</td><td class="num">${c.counts.warn}</td><td class="num">${c.counts.pass}</td></tr>`,
    )
    .join('\n');
  const latencyRows = kinds
    .map(([kind, l]) => `<tr><td>${escapeHtml(kind)}</td><td class="num">${formatCount(l?.count ?? 0)}</td><td class="num">${l?.p50 ?? 0}</td><td class="num">${l?.p90 ?? 0}</td><td class="num">${l?.p99 ?? 0}</td><td class="num">${l?.max ?? 0}</td><td class="num">${l?.mean ?? 0}</td></tr>`)
    .join('\n');
  const statusRows = Object.entries(st.statusCounts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `<tr><td>${escapeHtml(status)}</td><td class="num">${formatCount(n)}</td></tr>`)
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="referrer" content="no-referrer">
<title>Conformance: ${escapeHtml(report.target)} — ${verdict.toUpperCase()}</title>
<style>${CSS}</style>
</head>
<body>
<header><div class="inner">
<h1>Gateway conformance <span class="verdict ${verdict}">${verdict.toUpperCase()}</span></h1>
<div class="muted"><span class="mono">${escapeHtml(report.target)}</span> · ${escapeHtml(report.startedAt)} · ${escapeHtml(formatDuration(report.durationMs))} · ${report.options.concurrency} in flight · Authorization form used: ${escapeHtml(report.options.authForm)} · profile <b>${escapeHtml(report.options.profile)}</b> · ids ${report.options.rawIds ? 'raw' : 'percent-encoded'}</div>
</div></header>
<main>
<section class="cards">
${card('Checks failing', String(s.checks.fail))}
${card('Checks warning', String(s.checks.warn))}
${card('Checks passing', String(s.checks.pass))}
${card('Files / groups / users', `${formatCount(report.crawl.files.length)} / ${formatCount(report.crawl.groups.length)} / ${formatCount(report.crawl.users.length)}`)}
${card('Requests', formatCount(st.requests))}
${card('Bytes received', formatBytes(st.bytes))}
${card('Throughput', `${st.requestsPerSecond} req/s · ${formatBytes(st.bytesPerSecond)}/s`)}
${card('Latency p50 / p90 / p99', `${st.latencyMs.p50} / ${st.latencyMs.p90} / ${st.latencyMs.p99} ms`)}
</section>

<h2>Checks</h2>
<p class="muted">Click a check to see its findings.</p>
<table><thead><tr><th>Result</th><th>Check</th><th>What it checks</th><th>fail</th><th>warn</th><th>pass</th></tr></thead>
<tbody>
${checkRows}
</tbody></table>

<h2 id="findings">Findings</h2>
<div class="toolbar">
<button data-severity="bad" class="on">Failures and warnings</button><button data-severity="fail">Failures</button><button data-severity="warn">Warnings</button><button data-severity="pass">Passes</button><button data-severity="all">All</button>
<input type="search" id="findings-search" placeholder="Filter by text, URL, id…" aria-label="Filter findings">
<button id="findings-clear">All checks</button>
<span class="muted" id="findings-note"></span>
</div>
<table><thead><tr><th>Result</th><th>Check</th><th>Finding and evidence</th></tr></thead><tbody id="findings-body"></tbody></table>

<h2>Crawl statistics</h2>
<section class="cards">
${card('Duration', formatDuration(st.durationMs))}
${card('Most requests in flight', String(st.maxInFlight))}
${card('Retries after Retry-After', formatCount(st.retries))}
${card('Slow-downs / time paced', `${st.slowdowns} / ${formatDuration(st.pacedMs)}`)}
</section>
<h2>Latency by request kind (ms)</h2>
<table><thead><tr><th>Kind</th><th>Requests</th><th>p50</th><th>p90</th><th>p99</th><th>max</th><th>mean</th></tr></thead><tbody>
<tr><td><b>all</b></td><td class="num">${formatCount(st.latencyMs.count)}</td><td class="num">${st.latencyMs.p50}</td><td class="num">${st.latencyMs.p90}</td><td class="num">${st.latencyMs.p99}</td><td class="num">${st.latencyMs.max}</td><td class="num">${st.latencyMs.mean}</td></tr>
${latencyRows}
</tbody></table>
<h2>Status codes</h2>
<table style="max-width:320px"><thead><tr><th>Status</th><th>Responses</th></tr></thead><tbody>
${statusRows}
</tbody></table>

<h2>Access explorer</h2>
<p class="muted">${escapeHtml(report.accessPolicy)}</p>
<div class="toolbar"><button data-mode="file" class="on">A file → who can see it</button><button data-mode="user">A user → what they can see</button>
<input type="search" id="explorer-search" placeholder="Search by name, email or id…" aria-label="Search files or users"></div>
<div class="explorer"><div class="panel choices" id="explorer-choices"></div><div class="panel" id="explorer-result"><span class="muted">Pick a file or a user.</span></div></div>
</main>
<footer>content-gateway conformance · report format ${report.formatVersion} · finished ${escapeHtml(report.finishedAt)}</footer>
<script type="application/json" id="report-data">${scriptSafeJson(pageData(report))}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

import fs from 'node:fs';
import path from 'node:path';
import type { FileUsage, UsageReport } from './usage-report';

/** Escapes text for HTML element content and quoted attribute values. */
const esc = (text: string): string => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
/** JSON (or script) safe inside a <script> element: nothing in it can close the element. */
const scriptSafe = (text: string): string =>
  text
    .replace(/<\//g, '<\\/')
    .replace(/<!--/g, '<\\!--')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
const n = (v: number): string => v.toLocaleString('en-US');

/** chart.js's UMD build, read from node_modules when a page is rendered, so the page needs no network. */
export function chartJsSource(): string {
  return fs.readFileSync(path.join(path.dirname(require.resolve('chart.js')), 'chart.umd.min.js'), 'utf8');
}

const TOP = 15;

/** What the charts draw: the most cited files, the files by use, the most rated files. */
function chartData(report: UsageReport) {
  const label = (f: FileUsage) => (f.name && f.name !== f.id ? f.name : f.id);
  const cited = report.files.filter((f) => f.surfaced > 0).slice(0, TOP);
  const rated = report.files
    .filter((f) => f.helpful + f.unhelpful > 0)
    .sort((a, b) => b.helpful + b.unhelpful - (a.helpful + a.unhelpful))
    .slice(0, TOP);
  const t = report.totals;
  const stale = report.staleCitations.length;
  return {
    cited: { labels: cited.map(label), cited: cited.map((f) => f.cited), surfaced: cited.map((f) => f.surfaced - f.cited) },
    use: {
      labels: ['Cited', 'Surfaced, never cited', 'Never surfaced', 'Stale citations'],
      values: [t.citedFiles - stale, t.surfacedFiles - t.citedFiles, report.neverSurfaced.length, stale],
    },
    rated: { labels: rated.map(label), helpful: rated.map((f) => f.helpful), unhelpful: rated.map((f) => f.unhelpful) },
  };
}

const SCRIPT = `
const data = JSON.parse(document.getElementById('usage-data').textContent);
Chart.defaults.animation = false;
Chart.defaults.maintainAspectRatio = false;
const bar = (id, labels, sets) => new Chart(document.getElementById(id), { type: 'bar', data: { labels, datasets: sets }, options: { indexAxis: 'y', scales: { x: { stacked: true, beginAtZero: true, ticks: { precision: 0 } }, y: { stacked: true } } } });
bar('chart-cited', data.cited.labels, [{ label: 'Cited', data: data.cited.cited, backgroundColor: '#2563eb' }, { label: 'Surfaced, not cited', data: data.cited.surfaced, backgroundColor: '#93c5fd' }]);
new Chart(document.getElementById('chart-use'), { type: 'doughnut', data: { labels: data.use.labels, datasets: [{ data: data.use.values, backgroundColor: ['#2563eb', '#93c5fd', '#d1d5db', '#dc2626'] }] } });
if (data.rated.labels.length) bar('chart-feedback', data.rated.labels, [{ label: 'Helpful', data: data.rated.helpful, backgroundColor: '#16a34a' }, { label: 'Unhelpful', data: data.rated.unhelpful, backgroundColor: '#dc2626' }]);
document.body.dataset.chartsReady = 'true';
`;

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#111827;background:#f9fafb}header,main,footer{max-width:1100px;margin:0 auto;padding:16px 24px}h1{font-size:22px;margin:8px 0}h2{font-size:17px;margin:28px 0 10px}
.muted{color:#6b7280}.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:10px}.card{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:10px 12px;text-decoration:none;color:inherit;display:block}
.card b{display:block;font-size:22px}.charts{display:grid;grid-template-columns:2fr 1fr;gap:16px}.chart{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:12px;height:380px;position:relative}
table{border-collapse:collapse;width:100%;background:#fff}th,td{border-bottom:1px solid #e5e7eb;padding:5px 8px;text-align:left}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}.deleted,.missing{color:#dc2626}`;

function rows(files: readonly FileUsage[]): string {
  return files
    .map(
      (f) =>
        `<tr><td><code>${esc(f.id)}</code>${f.name && f.name !== f.id ? `<br><span class="muted">${esc(f.name)}</span>` : ''}</td><td class="${f.status}">${f.status}</td><td class="num">${n(f.surfaced)}</td><td class="num">${n(f.cited)}</td><td class="num">${n(f.helpful)}</td><td class="num">${n(f.unhelpful)}</td></tr>`,
    )
    .join('\n');
}

const HEAD =
  '<thead><tr><th>File</th><th>Status at the gateway</th><th class="num">Surfaced</th><th class="num">Cited</th><th class="num">Helpful</th><th class="num">Unhelpful</th></tr></thead>';
const card = (label: string, value: string, href: string) => `<a class="card" href="${href}"><b>${value}</b>${esc(label)}</a>`;

/** A self-contained page: cards, three charts (chart.js inline), and every file in tables. */
export function renderUsageHtml(report: UsageReport, chartJs: string = chartJsSource()): string {
  const t = report.totals;
  const never = report.neverSurfaced.map((id) => `<li><code>${esc(id)}</code></li>`).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Assistant usage of ${esc(report.gatewayUrl)}</title><style>${STYLE}</style></head>
<body>
<header><h1>How the assistant uses this gateway's files</h1>
<p class="muted">Gateway <code>${esc(report.gatewayUrl)}</code> · Data API <code>${esc(report.dataApiUrl)}</code>${report.scope ? ` · <code>${esc(report.scope)}</code>` : ''} · ${esc(report.generatedAt)}</p></header>
<main>
<section class="cards" aria-label="Totals">
${card(`files (${n(t.activeFiles)} active)`, n(t.files), '#files')}${card('surfaced', n(t.surfacedFiles), '#files')}${card('cited', n(t.citedFiles), '#files')}${card('never surfaced', n(report.neverSurfaced.length), '#never-surfaced')}${card('stale citations', n(report.staleCitations.length), '#stale')}${card('helpful / unhelpful', `${n(t.helpful)} / ${n(t.unhelpful)}`, '#feedback')}${card('platform requests', n(report.requests.platform), '#cost')}
</section>
<h2>Most cited files</h2>
<div class="charts"><div class="chart"><canvas id="chart-cited" aria-label="Most cited files"></canvas></div><div class="chart"><canvas id="chart-use" aria-label="Files by use"></canvas></div></div>
<h2 id="feedback">Feedback on answers that cited a file</h2>
${t.ratings ? '<div class="chart"><canvas id="chart-feedback" aria-label="Feedback by file"></canvas></div>' : '<p class="muted">No ratings yet.</p>'}
<h2 id="stale">Stale citations (${n(report.staleCitations.length)})</h2>
${report.staleCitations.length ? `<table>${HEAD}<tbody>${rows(report.staleCitations)}</tbody></table>` : '<p>None: every cited file is still active at the gateway.</p>'}
${report.missingChecked ? '' : '<p class="muted">Files the gateway no longer lists at all are looked for only with <code>--source</code>.</p>'}
<h2 id="files">Files (${n(report.files.length)})</h2>
<table id="files-table">${HEAD}<tbody>${rows(report.files)}</tbody></table>
<h2 id="never-surfaced">Never surfaced (${n(report.neverSurfaced.length)})</h2>
${never ? `<ul>${never}</ul>` : '<p>Every active file was surfaced at least once.</p>'}
<h2 id="cost">What this report cost the platform</h2>
<p>${n(report.requests.platform)} Data API requests (${n(report.counting.batches)} batched counts, ${n(report.counting.emptyBatches)} settling a whole batch at once, ${n(report.counting.listed)} batches listed, ${n(report.counting.split)} split) and ${n(report.requests.gateway)} gateway requests, in ${(report.elapsedMs / 1000).toFixed(1)} s.</p>
</main>
<footer class="muted"><a href="#">Back to top</a></footer>
<script type="application/json" id="usage-data">${scriptSafe(JSON.stringify(chartData(report)))}</script>
<script>${scriptSafe(chartJs)}</script>
<script>${SCRIPT}</script>
</body></html>
`;
}

/** The page's style sheet (inline: the page loads nothing from elsewhere). */
export const REPORT_PAGE_CSS = `
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

/**
 * The report page as a Mustache template. Every `{{value}}` is HTML-escaped (report-html.ts renders
 * it with its own escapeHtml); only the style sheet, the script and the script-safe JSON data block
 * go in raw (`{{{ }}}`). Sections (`{{#cards}}`) repeat a line per item.
 */
export const REPORT_PAGE_TEMPLATE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="referrer" content="no-referrer">
<title>Conformance: {{target}} — {{VERDICT}}</title>
<style>{{{css}}}</style>
</head>
<body>
<header><div class="inner">
<h1>Gateway conformance <span class="verdict {{verdict}}">{{VERDICT}}</span></h1>
<div class="muted"><span class="mono">{{target}}</span> · {{startedAt}} · {{duration}} · {{concurrency}} in flight · Authorization form used: {{authForm}} · profile <b>{{profile}}</b> · ids {{ids}}</div>
</div></header>
<main>
<section class="cards">
{{#summaryCards}}
<div class="card"><span class="muted">{{label}}</span><b>{{value}}</b></div>
{{/summaryCards}}
</section>

<h2>Checks</h2>
<p class="muted">Click a check to see its findings.</p>
<table><thead><tr><th>Result</th><th>Check</th><th>What it checks</th><th>fail</th><th>warn</th><th>pass</th></tr></thead>
<tbody>
{{#checks}}
<tr class="clickable" data-check="{{check}}"><td><span class="badge {{severity}}">{{SEVERITY}}</span></td><td><code>{{check}}</code></td><td>{{title}}{{#rule}}<div class="muted">{{rule}}</div>{{/rule}}</td><td class="num">{{fail}}</td><td class="num">{{warn}}</td><td class="num">{{pass}}</td></tr>
{{/checks}}
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
{{#statCards}}
<div class="card"><span class="muted">{{label}}</span><b>{{value}}</b></div>
{{/statCards}}
</section>
<h2>Latency by request kind (ms)</h2>
<table><thead><tr><th>Kind</th><th>Requests</th><th>p50</th><th>p90</th><th>p99</th><th>max</th><th>mean</th></tr></thead><tbody>
{{#latencyAll}}
<tr><td><b>all</b></td><td class="num">{{count}}</td><td class="num">{{p50}}</td><td class="num">{{p90}}</td><td class="num">{{p99}}</td><td class="num">{{max}}</td><td class="num">{{mean}}</td></tr>
{{/latencyAll}}
{{#latencyByKind}}
<tr><td>{{kind}}</td><td class="num">{{count}}</td><td class="num">{{p50}}</td><td class="num">{{p90}}</td><td class="num">{{p99}}</td><td class="num">{{max}}</td><td class="num">{{mean}}</td></tr>
{{/latencyByKind}}
</tbody></table>
<h2>Status codes</h2>
<table style="max-width:320px"><thead><tr><th>Status</th><th>Responses</th></tr></thead><tbody>
{{#statuses}}
<tr><td>{{status}}</td><td class="num">{{count}}</td></tr>
{{/statuses}}
</tbody></table>

<h2>Access explorer</h2>
<p class="muted">{{accessPolicy}}</p>
<div class="toolbar"><button data-mode="file" class="on">A file → who can see it</button><button data-mode="user">A user → what they can see</button>
<input type="search" id="explorer-search" placeholder="Search by name, email or id…" aria-label="Search files or users"></div>
<div class="explorer"><div class="panel choices" id="explorer-choices"></div><div class="panel" id="explorer-result"><span class="muted">Pick a file or a user.</span></div></div>
</main>
<footer>content-gateway conformance · report format {{formatVersion}} · finished {{finishedAt}}</footer>
<script type="application/json" id="report-data">{{{data}}}</script>
<script>{{{script}}}</script>
</body>
</html>
`;

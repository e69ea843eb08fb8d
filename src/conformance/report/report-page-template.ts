/**
 * The report page as a Mustache template. Every `{{value}}` is HTML-escaped (report-html.ts renders
 * it with its own escapeHtml); only the style sheet, the script, the script-safe JSON data block and
 * the policy go in raw (`{{{ }}}`): the first two are read from assets/ (report-assets.ts), and the
 * policy names their hashes (quotes and base64, nothing to escape). Sections (`{{#cards}}`) repeat a line per item.
 */
export const REPORT_PAGE_TEMPLATE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{{{csp}}}">
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
<table class="narrow"><thead><tr><th>Status</th><th>Responses</th></tr></thead><tbody>
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

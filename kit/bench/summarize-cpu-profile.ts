/**
 * `tsx kit/bench/summarize-cpu-profile.ts <file.cpuprofile> [--top <n>]`: where a V8 CPU profile's
 * time went, as shares of the samples: by owner (the innermost frame that is the project's own
 * module or a package, so Node internals and native builtins count for whoever called them), and
 * the functions with the most self time. Used for the request-floor breakdown in kit/bench/HISTORY.md.
 */
import fs from 'node:fs';
import path from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const HELP = `usage: tsx kit/bench/summarize-cpu-profile.ts <file.cpuprofile> [--top <n>]

Prints, as µs per request when --requests <n> is given (else as % of samples):
  by layer     routing, validation, auth, logging, metrics, headers, JSON, database, socket
               writes, ... (the innermost frame a layer rule matches, see LAYERS)
  by owner     the innermost frame of the project (src/..., bench/...) or of a package
               (node_modules/<name>); Node internals count for their caller; (idle),
               (garbage collector) and (program) stay as V8 names them
  by function  the functions with the most self time`;

/** Who a frame belongs to: `src/http/...`, a package name, or undefined for Node internals. */
function owner(frame: CallFrame): string | undefined {
  const url = frame.url;
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : undefined;
  if (url.startsWith('node:')) return undefined;
  const file = url.replace(/^file:\/\//, '');
  const modules = file.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = file.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const rel = path.relative(process.cwd(), file);
  return rel.startsWith('..') ? undefined : rel;
}

/**
 * The layers of a request, innermost first wins: a sample counts for the innermost frame on its
 * stack that one of these matches (so `writev` under Express's `send` is socket I/O, and
 * `JSON.stringify` under a handler is serialisation).
 */
const LAYERS: ReadonlyArray<readonly [string, (f: CallFrame) => boolean]> = [
  ['(garbage collector)', (f) => f.functionName === '(garbage collector)'],
  ['(idle)', (f) => f.functionName === '(idle)'],
  ['socket write (kernel)', (f) => !f.url && /^writev?$|^write(Buffer|Utf8String|Latin1String)$/.test(f.functionName)],
  ['JSON serialisation', (f) => f.functionName === 'stringify' || f.functionName === 'JSON.stringify'],
  ['database (knex, driver, repositories)', (f) => /node_modules\/(knex|better-sqlite3|tarn|pg|pg-protocol)\/|\/src\/staging\//.test(f.url)],
  ['auth (API key / token check)', (f) => /\/src\/http\/security\//.test(f.url)],
  ['rate limiter', (f) => /rate-limiter/.test(f.url)],
  ['logging (pino-http, request id)', (f) => /request-logger|node_modules\/pino(-http|-std-serializers)?\//.test(f.url)],
  ['metrics (prom-client)', (f) => /gateway-metrics|node_modules\/prom-client\//.test(f.url)],
  ['security headers (helmet)', (f) => /security-headers|node_modules\/helmet\//.test(f.url)],
  ['contract routing (openapi-backend router)', (f) => /openapi-backend\/router|node_modules\/bath-es5\//.test(f.url)],
  ['contract validation (openapi-backend + ajv)', (f) => /openapi-backend\/validation|node_modules\/ajv/.test(f.url)],
  [
    'contract dispatch (contract-dispatcher; openapi-backend handleRequest, lodash)',
    (f) => /\/src\/http\/contract-dispatcher|openapi-backend\/|node_modules\/lodash\//.test(f.url),
  ],
  ['handlers', (f) => /\/src\/http\/handlers\/|\/src\/http\/serve-collection|\/src\/odata\//.test(f.url)],
  ['gateway middleware (admission, host, ids, query, errors)', (f) => /\/src\/http\//.test(f.url)],
  [
    'Express (app, router, req/res helpers)',
    (f) =>
      /node_modules\/(express|router|parseurl|content-type|mime-types|mime-db|send|fresh|finalhandler|qs|path-to-regexp|debug|on-finished|cookie)\//.test(
        f.url,
      ),
  ],
  [
    'Node HTTP (parser, headers, streams)',
    (f) => /^node:(_http|net|internal\/stream|internal\/streams|events|internal\/process)/.test(f.url) || f.functionName === 'dispatch',
  ],
];

/** Self time by layer (`LAYERS`), for a request-cost breakdown. */
function byLayer(profile: CpuProfile, byId: Map<number, ProfileNode>, parent: Map<number, number>, selfUs: Map<number, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [id, us] of selfUs) {
    let layer: string | undefined;
    for (let at: number | undefined = id; at !== undefined && layer === undefined; at = parent.get(at)) {
      const frame = (byId.get(at) as ProfileNode).callFrame;
      layer = LAYERS.find(([, test]) => test(frame))?.[0];
    }
    const key = layer ?? '(other: program, root, Node internals)';
    out.set(key, (out.get(key) ?? 0) + us);
  }
  void profile;
  return out;
}

function summarize(profile: CpuProfile, top: number, requests: number | undefined): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + dt);
    total += dt;
  });
  const owners = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id) as ProfileNode;
    let who: string | undefined;
    for (let at: number | undefined = id; at !== undefined && who === undefined; at = parent.get(at)) who = owner((byId.get(at) as ProfileNode).callFrame);
    const key = who ?? '(node internals, no caller of ours)';
    owners.set(key, (owners.get(key) ?? 0) + us);
    const f = node.callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url ? `${f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/')}:${f.lineNumber + 1}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
  }
  const show = (us: number): string => (requests ? `${(us / requests).toFixed(1).padStart(7)} µs` : `${((us / total) * 100).toFixed(1).padStart(5)} %`);
  const rows = (m: Map<string, number>): string[] =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => `  ${show(us)}  ${k}`);
  const layers = byLayer(profile, byId, parent, selfUs);
  return [
    `${(total / 1000).toFixed(0)} ms sampled`,
    'by layer:',
    ...rows(layers),
    'by owner:',
    ...rows(owners),
    'by function (self):',
    ...rows(functions),
  ].join('\n');
}

function main(argv: readonly string[]): void {
  const file = argv.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
  if (argv.includes('--help') || !file) {
    console.log(HELP);
    return;
  }
  const at = (name: string): number | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : undefined;
  };
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  console.log(summarize(profile, at('--top') ?? 30, at('--requests')));
}

main(process.argv.slice(2));

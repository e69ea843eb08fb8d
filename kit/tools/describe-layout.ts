import fs from 'node:fs';
import path from 'node:path';

/**
 * What each room is for; a room of the tree without a line here makes describeLayout throw. A
 * room's folders may be described too (`src/staging/database`): then each of its folders must be,
 * and the page lists them in a table of their own.
 */
export const ROOM_PURPOSES: Readonly<Record<string, string>> = {
  'src/main.ts': 'the only file that reads the environment, listens or exits',
  'src/index.ts': "the package's public entry (with lib/, logging/, conformance/, platform/ index files): all the kit may import",
  'src/cli': 'the commander program, one file per command, each loaded only when its command runs; the sync schedulers (in process, or a Postgres job queue)',
  'src/config': 'the zod schema of every setting (env name, default, doc) and its loader',
  'src/errors': 'the error registry (code -> status) and the gateway error type',
  'src/lib': 'small generic helpers with no knowledge of the domain',
  'src/logging': 'the pino logger and its redaction',
  'src/http': 'the app factory, contract routing, auth, rate limits, one handler per operation, errors',
  'src/odata': '$top/$skip/$skiptoken/$filter/$select/$orderby and signed cursors',
  'src/wire': 'the JSON /v1 serves for files, users and groups (pure)',
  'src/staging': "the staging database: how it is opened, the read engine for pages and ids, the repositories, the sync's write path",
  'src/staging/database':
    'opening the staging database: the knex factory, its extra connections (SQLite read handle and read worker, Postgres watch), migrations, row types',
  'src/staging/read-path': 'the read engine behind list pages and id look-ups: keyset pages, compiled statements, pages of stored JSON',
  'src/staging/repositories':
    'one class per concern, over the tables: files, identities, checkpoints, sync runs and lock, policy groups, settings, the sync job queue (read only)',
  'src/staging/write-path': 'what a sync batch writes through: SyncStore, bulk inserts, people across sources (person ids)',
  'src/blobs': 'the BlobStore interface and its stores (content-addressed folder, database, S3 bucket)',
  'src/outbound-http': 'the HTTP client every outbound call uses: retries honouring Retry-After, pagination, typed errors',
  'src/adapters': 'the adapter contract and one folder per adapter',
  'src/policies': 'access policies (YAML), their compiler into groups, `policy explain`',
  'src/sync': 'the sync use case as named stages (the access policy one of them); failed items kept for retry',
  'src/scaffold': '`new-adapter`: renders templates/adapter',
  'src/demo': 'the demo corpus (checked-in files) and how it is loaded',
  'src/console':
    'the operator console: server-rendered pages (templates/console) and the JSON each shows, behind its own admin key; the access explorer, blob health',
  'src/conformance': "the platform's crawl replayed against a gateway, its checks, effective access and reports",
  'src/platform': "clients of the platform's Data, Conversations and Message APIs, and `usage`",
  'kit/src/mocks': 'the outside worlds: the work-management API mock, the platform simulator and an S3-compatible server',
  'kit/src/scenarios': 'the end-to-end scenarios: crawl harness, closed loop (assistant), multi-source',
  'kit/src/cli': "the kit's command line (`npm run kit -- mock …`, `npm run harness`)",
  'kit/src/demo': 'the builder of the demo corpus binaries (a development script; its outputs are checked in)',
  'kit/src/fixtures': 'generated source trees shared by tests and benchmarks',
  'kit/src/main.ts': "the kit CLI's process entry",
  'kit/bench': 'benchmarks with in-run baselines (`npm run bench`)',
  'kit/tools': 'development tools (this page is written by one)',
  'kit/test': "the kit's own tests (the mocks' rules, the scenarios' parts)",
};

interface Size {
  files: number;
  lines: number;
}

function sizeOf(target: string): Size {
  if (fs.statSync(target).isFile())
    return target.endsWith('.ts') ? { files: 1, lines: fs.readFileSync(target, 'utf8').split('\n').length - 1 } : { files: 0, lines: 0 };
  return fs
    .readdirSync(target, { withFileTypes: true })
    .filter((entry) => entry.name !== 'node_modules' && entry.name !== 'results')
    .map((entry) => sizeOf(path.join(target, entry.name)))
    .reduce((a, b) => ({ files: a.files + b.files, lines: a.lines + b.lines }), { files: 0, lines: 0 });
}

/** The rooms under `base` (its folders and its top-level files other than index files), relative to the root. */
function roomsOf(root: string, base: string): string[] {
  return fs
    .readdirSync(path.join(root, base), { withFileTypes: true })
    .filter((entry) => (entry.isDirectory() ? entry.name !== 'node_modules' && entry.name !== 'results' : entry.name.endsWith('.ts')))
    .map((entry) => `${base}/${entry.name}`)
    .filter((room) => sizeOf(path.join(root, room)).files > 0)
    .sort();
}

const number = (n: number): string => n.toLocaleString('en-US');
/** Sizes rounded (to 100 lines, 10 files) so that an ordinary edit leaves the pages as they are. */
const lines = (n: number): string => (n < 50 ? '< 50' : `~${number(Math.round(n / 100) * 100)}`);
const files = (n: number): string => (n < 10 ? String(n) : `~${number(Math.round(n / 10) * 10)}`);

function table(root: string, rooms: readonly string[]): string[] {
  const missing = rooms.filter((room) => ROOM_PURPOSES[room] === undefined);
  if (missing.length) throw new Error(`no purpose written for ${missing.join(', ')} (kit/tools/describe-layout.ts)`);
  const rows = rooms.map((room) => {
    const size = sizeOf(path.join(root, room));
    const subrooms = fs.statSync(path.join(root, room)).isDirectory() ? roomsOf(root, room).filter((r) => fs.statSync(path.join(root, r)).isDirectory()) : [];
    const within = subrooms.length ? ` (${subrooms.map((r) => `${path.basename(r)}/ ${lines(sizeOf(path.join(root, r)).lines)}`).join(', ')})` : '';
    return `| \`${room}${fs.statSync(path.join(root, room)).isDirectory() ? '/' : ''}\` | ${files(size.files)} | ${lines(size.lines)} | ${ROOM_PURPOSES[room]}${within} |`;
  });
  return ['| room | files | lines | what it is |', '|---|---:|---:|---|', ...rows];
}

const productRooms = (root: string): string[] => roomsOf(root, 'src');
const isFolder = (root: string, room: string): boolean => fs.statSync(path.join(root, room)).isDirectory();
/** The folders of the product's rooms whose folders are described (any one of them is). */
const describedFolders = (root: string): string[] =>
  productRooms(root)
    .filter((room) => isFolder(root, room))
    .map((room) => roomsOf(root, room).filter((r) => isFolder(root, r)))
    .filter((folders) => folders.some((folder) => ROOM_PURPOSES[folder] !== undefined))
    .flat();
const kitRooms = (root: string): string[] => [...roomsOf(root, 'kit/src'), 'kit/bench', 'kit/tools', 'kit/test'];

function totals(root: string): string[] {
  const productSize = sizeOf(path.join(root, 'src'));
  const kitSize = sizeOf(path.join(root, 'kit'));
  return [
    `**The product** (\`src/\`, what a company forks and deploys): ${files(productSize.files)} files, ${lines(productSize.lines)} lines of TypeScript.`,
    `**The verification kit** (\`kit/\`, a workspace package of its own that imports the product only through what \`package.json\` exports): ${files(kitSize.files)} files, ${lines(kitSize.lines)} lines.`,
  ];
}

/** The README's block between its layout markers: the two sizes and the product's rooms, one line each. */
export function describeLayoutForReadme(root: string): string {
  const rooms = productRooms(root).map(
    (room) => `\`${room}${fs.statSync(path.join(root, room)).isDirectory() ? '/' : ''}\` ${lines(sizeOf(path.join(root, room)).lines)}`,
  );
  return [...totals(root), '', `Rooms of the product, in lines: ${rooms.join(' · ')}. What each holds: [docs/layout.md](docs/layout.md).`].join('\n');
}

/** docs/layout.md as the tree at `root` gives it. */
export function describeLayout(root: string): string {
  return [
    '# Where things are',
    '',
    '<!-- Written by `npm run layout` (kit/tools/write-layout.ts) from the tree; a test fails when it is out of date. -->',
    '',
    ...totals(root),
    'Besides them: `openapi/content-gateway.yaml` (the contract), `migrations/` (the staging schema, frozen), `templates/` (adapter scaffold, HTML),',
    "`manifests/` (REST sources described as data, read by the rest adapter), `test/` (the product's tests: unit, api, contract, e2e, browser), `docs/`, `deploy/`.",
    '',
    '## The product',
    '',
    ...table(root, productRooms(root)),
    '',
    ...(describedFolders(root).length ? ['### Within the rooms', '', ...table(root, describedFolders(root)), ''] : []),
    '## The kit',
    '',
    ...table(root, kitRooms(root)),
    '',
  ].join('\n');
}

const START = '<!-- layout:start (written by `npm run layout`) -->';
const END = '<!-- layout:end -->';

/** The README with its layout block replaced by `block`; throws when the markers are missing. */
export function withReadmeLayout(readme: string, block: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md lacks the markers ${START} … ${END}`);
  return `${readme.slice(0, start + START.length)}\n${block}\n${readme.slice(end)}`;
}

import fs from 'node:fs';
import path from 'node:path';
import { checkDocCommand, isCommand, type DocWorld } from '../helpers/doc-command-check';
import { docCommands, inlineCommands, simpleCommands } from '../helpers/doc-commands';
import { ROOT, docWorld } from '../helpers/doc-world';

/**
 * Every command line of the README and the guides is checked against the real thing (issue 29):
 * CLI commands and options against the commander programs, npm scripts against package.json,
 * curl paths against the contract, variables against the settings and what the code reads.
 * A program the check does not know fails it, so a new kind of command must be classified.
 */

const world: DocWorld = docWorld();

/** The guides: the README, docs/, and the READMEs of the product's and the kit's parts. */
function guides(): string[] {
  const md = (dir: string): string[] =>
    fs
      .readdirSync(path.join(ROOT, dir))
      .filter((f) => f.endsWith('.md'))
      .map((f) => path.join(dir, f));
  const readmes = (dir: string): string[] =>
    fs
      .readdirSync(path.join(ROOT, dir))
      .map((d) => path.join(dir, d, 'README.md'))
      .filter((f) => fs.existsSync(path.join(ROOT, f)));
  return [
    'README.md',
    ...md('docs'),
    'src/conformance/README.md',
    ...readmes('src/adapters'),
    ...md('kit'),
    'kit/bench/README.md',
    ...readmes('kit/src/mocks'),
  ];
}

const commandsOf = (file: string, text: string) => [...docCommands(file, text, (words) => isCommand(words, world)), ...inlineCommands(file, text)];

async function problemsOf(file: string, text: string): Promise<string[]> {
  const problems: string[] = [];
  for (const c of commandsOf(file, text)) for (const p of await checkDocCommand(c.words, world)) problems.push(`${c.file}:${c.line}: ${p}`);
  return problems;
}

describe('the shell reading of a guide', () => {
  it('joins continuations, strips prompts and comments, splits at operators and drops redirections', () => {
    const md = ['```console', '$ FOO=1 npm run cli -- sync \\', '    --all   # every adapter', 'output line', '```'].join('\n');
    expect(commandsOf('x.md', md).map((c) => c.words)).toEqual([['FOO=1', 'npm', 'run', 'cli', '--', 'sync', '--all']]);
    expect(simpleCommands(`read -rs K && export K; curl -H "a $(cat f)" 'u' > out.json`)).toEqual([
      ['read', '-rs', 'K'],
      ['export', 'K'],
      ['curl', '-H', 'a $(cat f)', 'u'],
    ]);
  });

  it('reads inline code spans of the prose that open with one of our commands, not those in blocks', () => {
    const md = 'Run `npm run cli -- sync --all` or `git status`.\n```yaml\nx: `npm run lint`\n```';
    expect(commandsOf('x.md', md).map((c) => c.words)).toEqual([['npm', 'run', 'cli', '--', 'sync', '--all']]);
  });

  it('reads unlabeled blocks only when they open with a command', () => {
    expect(commandsOf('x.md', '```\nnpm run harness\n```\n```\nyour sources ──▶ sync\n```\n```yaml\nversion: 1\n```')).toHaveLength(1);
  });
});

describe('the check of a guide command', () => {
  const wrong = [
    ['npm run cli -- sync --no-such-flag', /unknown option '--no-such-flag'/],
    ['npm run cli -- no-such-command', /unknown command/],
    ['npm run no-such-script', /no such script/],
    ['curl -s -H "$H" "$B/v1/nope"', /serves no \/v1\/nope/],
    ['curl -s http://localhost:3000/v1/users/u1?$top=1', /serves no \/v1\/users\/u1/],
    ['npm run cli -- policy no-such-subcommand', /unknown command/],
    ['WM_MOCK_TOKEN=<token> npm run kit -- mock no-such-mock', /unknown command 'no-such-mock'/],
    ['NO_SUCH_SETTING=1 npm start', /NO_SUCH_SETTING: no setting/],
    ['export ALSO_NOT_A_SETTING=1', /ALSO_NOT_A_SETTING/],
    ['npm run harness -- --no-such-harness-flag', /unknown option/],
    ['frobnicate --all', /does not know/],
    ['docker compose run --rm sync sync --al', /unknown option '--al'/],
    ['docker compose exec -T nosuch tar -czf - blobs', /no such service/],
    ['See `npm run cli -- runs [source] [--limt n]`.', /unknown option '--limt'/],
  ] as const;
  it.each(wrong)('reports %s', async (line, expected) => {
    const problems = await problemsOf('wrong.md', line.startsWith('See') ? line : `\`\`\`sh\n${line}\n\`\`\``);
    expect(problems).toEqual([expect.stringMatching(expected)]);
  });

  it('accepts real commands, options, scripts, routes and settings', async () => {
    const md = [
      '```sh',
      'DATABASE_URL=postgres://x npm run cli -- sync --all --every 15m',
      'npm run conformance -- --url http://localhost:3000 --profile strict',
      'curl -s "$B/v1/files/demo:a/b.html/download"; curl -s "$B/healthz"',
      'npm run kit -- mock platform --port 4020',
      'docker compose ps',
      'docker compose --profile scaled up -d --build --scale gateway=0',
      'docker compose run --rm -T --entrypoint tar gateway -C /data -xzf - < blobs.tar.gz',
      'docker compose run --rm sync sync --all --full',
      '```',
    ].join('\n');
    expect(await problemsOf('right.md', md)).toEqual([]);
  });
});

describe('the README and the guides', () => {
  it.each(guides())('%s: every command matches the real thing', async (file) => {
    expect(await problemsOf(file, fs.readFileSync(path.join(ROOT, file), 'utf8'))).toEqual([]);
  });

  it('have commands to check (the extraction finds them)', () => {
    const all = guides().flatMap((file) => commandsOf(file, fs.readFileSync(path.join(ROOT, file), 'utf8')));
    expect(all.length).toBeGreaterThan(80);
  });
});

import { CommanderError, type Command } from 'commander';
import { shellWords } from './doc-commands';

/**
 * What a guide's command is checked against: the real command lines (fresh each time, parsing
 * mutates them), package.json scripts, the served routes, the variables the code reads, and the
 * programs the guides may name without their being checkable here.
 */
export interface DocWorld {
  gateway: () => Promise<Command>;
  kit: () => Promise<Command>;
  scripts: Record<string, string>;
  /** Path templates (`/v1/files/{id}`) and fixed paths the app serves. */
  routes: string[];
  /** Environment variable names something real reads. */
  variables: Set<string>;
  /** Shell variables of the examples (not settings), each with why it is there. */
  shellVariables: Record<string, string>;
  /** docker-compose.yml's services, and whether each runs the gateway's image (its arguments: our command line). */
  composeServices: Record<string, { gateway: boolean }>;
  /** Programs the guides run that these checks cannot follow, each with what it is. */
  external: Record<string, string>;
}

const NPM_BUILTINS = new Set(['ci', 'install']);
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=/;

/** Thrown by the pre-action hook: the words parsed, and nothing runs. */
class Parsed extends Error {}

/** Every command of `program`: errors thrown instead of exiting, output kept, no output printed. */
function quiet(program: Command, errors: string[]): Command {
  program.exitOverride();
  program.configureOutput({ writeOut: () => undefined, writeErr: (s) => void errors.push(s.trim()), outputError: (s) => void errors.push(s.trim()) });
  for (const command of program.commands) quiet(command, errors);
  return program;
}

/**
 * `program`, made inert: commander checks commands, options and arguments before it calls any
 * `preAction` hook (its documented order), so a hook on the root that throws stops every action
 * of every subcommand after the checks and before it runs.
 */
function inert(program: Command, errors: string[]): Command {
  return quiet(program, errors).hook('preAction', () => {
    throw new Parsed();
  });
}

/** What commander says about `args` (undefined: it parses), without running anything. */
async function parseProblem(program: Command, args: string[]): Promise<string | undefined> {
  const errors: string[] = [];
  const more = args.findIndex((a) => a === '…' || a === '...');
  const checked = more < 0 ? args : args.slice(0, more); // `mock …`: the words before the ellipsis are checked
  try {
    await inert(program, errors).parseAsync(
      checked.map((a) => a.replace(/^\[|\]$/g, '')),
      { from: 'user' },
    );
    return undefined;
  } catch (error) {
    if (error instanceof Parsed) return undefined;
    if (error instanceof CommanderError && ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code)) return undefined;
    // `cli -- <command>`: a placeholder where a command goes names none to check
    if (error instanceof CommanderError && error.code === 'commander.unknownCommand' && /unknown command '<[^']*>'/.test(error.message)) return undefined;
    return `${program.name()} ${args.join(' ')}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** The program a package.json script runs and the words it passes first, if it is one of ours. */
function scriptTarget(script: string, world: DocWorld): { program: () => Promise<Command>; prefix: string[] } | undefined {
  const words = shellWords(script.split('&&').pop() ?? '');
  const [runner, entry, ...prefix] = words;
  if ((runner === 'node' && entry === 'dist/src/main.js') || (runner === 'tsx' && entry === 'src/main.ts')) return { program: world.gateway, prefix };
  if (runner === 'tsx' && entry === 'kit/src/main.ts') return { program: world.kit, prefix };
  return undefined;
}

/** `npm …`: a builtin, or a script package.json defines (and its arguments, when it runs one of our programs). */
async function checkNpm(args: string[], world: DocWorld): Promise<string[]> {
  const dash = args.indexOf('--');
  const own = (dash < 0 ? args : args.slice(0, dash)).filter((a) => !a.startsWith('-'));
  const extra = dash < 0 ? [] : args.slice(dash + 1);
  const [verb, named] = own;
  if ((verb && NPM_BUILTINS.has(verb)) || (verb === 'run' && named === undefined)) return [];
  const name = verb === 'run' || verb === 'run-script' ? named : verb;
  const script = name === undefined ? undefined : world.scripts[name];
  if (script === undefined) return [`npm ${name ?? ''}: package.json has no such script`];
  const target = scriptTarget(script, world);
  const problem = target && (await parseProblem(await target.program(), [...target.prefix, ...extra]));
  return problem ? [problem] : [];
}

/** `curl … <url>`: the URL's path is a route the gateway serves. */
function checkCurl(args: string[], world: DocWorld): string[] {
  const url = args.find((a) => /^(https?:\/\/|\$\{?\w+\}?\/)/.test(a));
  if (!url) return [`curl ${args.join(' ')}: no URL to check`];
  const path = url.replace(/^(https?:\/\/[^/]+|\$\{?\w+\}?)/, '').replace(/[?#].*$/, '');
  const served = world.routes.some((route) => new RegExp(`^${route.replace(/\{[^}]+\}/g, '.+')}$`).test(path));
  return served ? [] : [`curl ${url}: the gateway serves no ${path}`];
}

const COMPOSE_VALUED = new Set([
  '-f',
  '--file',
  '-p',
  '--project-name',
  '--profile',
  '-e',
  '--env',
  '--name',
  '-u',
  '--user',
  '-w',
  '--workdir',
  '-v',
  '--volume',
  '-l',
  '--label',
  '--scale',
]);

/** The words of a `docker compose …` line that are neither options nor their values. */
function composeWords(args: string[]): { words: string[]; flags: string[] } {
  const words: string[] = [];
  const flags: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (!a.startsWith('-')) {
      words.push(a);
      continue;
    }
    flags.push(a);
    if (COMPOSE_VALUED.has(a) || a === '--entrypoint') i++;
  }
  return { words, flags };
}

/** `docker compose run|exec|… <service> …`: the services exist; `run <gateway service> <args>` is our command line. */
async function checkCompose(args: string[], world: DocWorld): Promise<string[]> {
  const verbIndex = args.findIndex((a, i) => !a.startsWith('-') && !COMPOSE_VALUED.has(args[i - 1] ?? ''));
  const verb = args[verbIndex];
  const rest = args.slice(verbIndex + 1);
  if (verb !== 'run' && verb !== 'exec') {
    const named = composeWords(rest).words.filter((w) => !(w in world.composeServices));
    return verb === 'up' || verb === 'down' || verb === 'ps' || named.length === 0 ? [] : [`docker compose ${verb}: no service ${named.join(', ')}`];
  }
  const { words, flags } = composeWords(rest);
  const service = words[0] ?? '';
  if (!(service in world.composeServices)) return [`docker compose ${verb} ${service}: docker-compose.yml has no such service`];
  if (verb === 'exec' || flags.includes('--entrypoint') || !world.composeServices[service]?.gateway) return [];
  const problem = await parseProblem(await world.gateway(), rest.slice(rest.indexOf(service) + 1));
  return problem ? [problem] : [];
}

function checkVariable(name: string, world: DocWorld): string[] {
  if (world.variables.has(name) || name in world.shellVariables) return [];
  return [`${name}: no setting, adapter setting or variable the code reads (nor a listed shell variable)`];
}

/** `export A=1 B`, `read -rs A`: the names they set. */
function setNames(args: string[]): string[] {
  return args.filter((a) => !a.startsWith('-')).map((a) => ASSIGNMENT.exec(a)?.[1] ?? a);
}

/** What is wrong with one simple command of a guide (nothing: it matches the real thing). */
export async function checkDocCommand(words: string[], world: DocWorld): Promise<string[]> {
  const assigned: string[] = [];
  let i = 0;
  for (; i < words.length && ASSIGNMENT.test(words[i] as string); i++) assigned.push(ASSIGNMENT.exec(words[i] as string)?.[1] as string);
  const [program, ...args] = words.slice(i);
  const problems = assigned.flatMap((name) => checkVariable(name, world));
  if (program === undefined) return problems;
  return [...problems, ...(await checkProgram(program, args, world))];
}

async function checkProgram(program: string, args: string[], world: DocWorld): Promise<string[]> {
  const gateway = async (rest: string[]): Promise<string[]> => {
    const problem = await parseProblem(await world.gateway(), rest);
    return problem ? [problem] : [];
  };
  if (program === 'export' || program === 'read') return setNames(args).flatMap((name) => checkVariable(name, world));
  if (program === 'npm') return checkNpm(args, world);
  if (program === 'content-gateway') return gateway(args);
  if (program === 'npx' && args[0] === 'content-gateway') return gateway(args.slice(1));
  if (program === 'node' && args[0] === 'dist/src/main.js') return gateway(args.slice(1));
  if (program === 'node' && args[0] === '-e') return [];
  if (program === 'curl') return checkCurl(args, world);
  if (program === 'docker' && args[0] === 'compose') return checkCompose(args.slice(1), world);
  if (program in world.external) return [];
  return [`${program}: a program the guides' check does not know (check it, or list it as external)`];
}

/** Whether a line opens with a program the check knows (an unlabeled block of such lines is shell). */
export function isCommand(words: string[], world: Pick<DocWorld, 'external'>): boolean {
  const program = words.find((w) => !ASSIGNMENT.test(w));
  return program !== undefined && (['export', 'read', 'npm', 'npx', 'content-gateway', 'node', 'curl'].includes(program) || program in world.external);
}

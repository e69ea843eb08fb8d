import fs from 'node:fs';
import path from 'node:path';
import { buildProgram, buildProgramFor, COMMANDS } from '../../src/cli/program';
import type { Runtime } from '../../src/cli/runtime';

const runtime: Runtime = {
  env: {},
  print: () => undefined,
  listen: () => Promise.reject(new Error('not in this test')),
  onShutdown: () => undefined,
  setExitCode: () => undefined,
  interactive: false,
};

/** The command line loads only the command asked for; the index of commands stays the program's. */
describe('the command line', () => {
  it('lists every command the program registers, and only those', async () => {
    const full = await buildProgram(runtime);
    expect(COMMANDS.map((c) => c.name).sort()).toEqual(full.commands.map((c) => c.name()).sort());
  });

  it('registers the command asked for in full, the others by name and summary only', async () => {
    const program = await buildProgramFor(runtime, ['node', 'content-gateway', 'sync', '--all']);
    const sync = program.commands.find((c) => c.name() === 'sync');
    expect(sync?.options.map((o) => o.long)).toContain('--all');
    const migrate = program.commands.find((c) => c.name() === 'migrate');
    expect(migrate?.options).toEqual([]);
    expect(migrate?.summary()).toBe(COMMANDS.find((c) => c.name === 'migrate')?.summary);
  });

  it('top-level help lists every command with its summary, loading none', async () => {
    const program = await buildProgramFor(runtime, ['node', 'content-gateway', '--help']);
    const help = program.helpInformation();
    for (const command of COMMANDS) expect(help).toContain(command.name);
    expect(program.commands.every((c) => c.options.length === 0)).toBe(true);
  });
});

describe('--version', () => {
  it("prints package.json's version", async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as { version: string };
    const program = (await buildProgramFor(runtime, ['node', 'content-gateway', '--version'])).exitOverride();
    let printed = '';
    program.configureOutput({ writeOut: (text) => (printed += text) });
    expect(() => program.parse(['node', 'content-gateway', '--version'])).toThrow(version);
    expect(printed.trim()).toBe(version);
  });
});

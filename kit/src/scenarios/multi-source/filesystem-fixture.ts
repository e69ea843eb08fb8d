import fs from 'node:fs';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { normalizeEmail } from 'content-gateway/lib';
import { upperSpelling, type ScenarioPerson } from './scenario-people';

/**
 * The scenario's folder tree for the filesystem adapter, held as a model the oracle evaluates
 * directly (the tree on disk is written from it): a directory of users (people shared with the
 * work-management organization under upper-cased emails, one person of its own, one inactive),
 * two teams (one nested in the other), and folders shared with everybody, a team, or two people.
 */
export interface FsModel {
  users: Array<{ id: string; email: string; active: boolean }>;
  groups: Array<{ id: string; users: string[]; groups: string[] }>;
  folders: Array<{ name: string; rule: { public?: boolean; users?: string[]; groups?: string[] }; files: string[] }>;
}

export function filesystemModel(people: readonly ScenarioPerson[]): FsModel {
  const users = people.slice(0, 8).map((p, i) => ({ id: `u${i}`, email: upperSpelling(p.email), active: i !== 5 }));
  users.push({ id: 'archivist', email: 'archivist@files.example', active: true });
  return {
    users,
    groups: [
      { id: 'team-a', users: ['u0', 'u1', 'u2', 'archivist'], groups: [] },
      { id: 'team-b', users: ['u3', 'u4', 'u5'], groups: ['team-a'] },
    ],
    folders: [
      { name: 'public', rule: { public: true }, files: ['handbook.md'] },
      { name: 'team-a', rule: { groups: ['team-a'] }, files: ['plan.md', 'notes.md'] },
      { name: 'team-b', rule: { groups: ['team-b'] }, files: ['roadmap.md'] },
      { name: 'private', rule: { users: ['u1', 'u6'] }, files: ['salaries.md'] },
    ],
  };
}

/** Writes (or rewrites) the tree under `root` from the model. */
export function writeFilesystemTree(root: string, model: FsModel): void {
  fs.mkdirSync(root, { recursive: true });
  const directory = {
    users: model.users.map((u) => ({ id: u.id, email: u.email, full_name: `Person ${u.id}`, active: u.active })),
    groups: model.groups.map((g) => ({ id: g.id, name: g.id, members: [...g.users.map((user) => ({ user })), ...g.groups.map((group) => ({ group }))] })),
  };
  fs.writeFileSync(path.join(root, '_directory.yaml'), toYaml(directory));
  for (const folder of model.folders) {
    const dir = path.join(root, folder.name);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, '_access.yaml'), toYaml(folder.rule));
    for (const file of folder.files) fs.writeFileSync(path.join(dir, file), `# ${folder.name}/${file}\n\nFor ${folder.name}.\n`);
  }
}

/**
 * Who may see each file (`<folder>/<file>` → normalised emails) by the tree's own rules: named
 * users and the members of named groups, nested groups included, active in the directory; a
 * public folder is everybody (`everyone`: the active people of every source).
 */
export function filesystemOracle(model: FsModel, everyone: ReadonlySet<string>): Map<string, Set<string>> {
  const byId = new Map(model.users.map((u) => [u.id, u]));
  const groups = new Map(model.groups.map((g) => [g.id, g]));
  const members = (id: string, seen = new Set<string>()): string[] => {
    const g = groups.get(id);
    if (!g || seen.has(id)) return [];
    seen.add(id);
    return [...g.users, ...g.groups.flatMap((x) => members(x, seen))];
  };
  const out = new Map<string, Set<string>>();
  for (const folder of model.folders) {
    const who = new Set<string>();
    if (folder.rule.public) for (const email of everyone) who.add(email);
    for (const id of [...(folder.rule.users ?? []), ...(folder.rule.groups ?? []).flatMap((g) => members(g))]) {
      const user = byId.get(id);
      if (user?.active) who.add(normalizeEmail(user.email));
    }
    for (const file of folder.files) out.set(`${folder.name}/${file}`, who);
  }
  return out;
}

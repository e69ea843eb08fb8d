// @ts-check
/* exported buildAccess */
/**
 * The access computation of the HTML report's explorer, as browser JavaScript (a classic script:
 * `buildAccess` is a global the page's script calls). It mirrors `EffectiveAccess` (same rules:
 * VIEW only, `GROUP *` is every user, `USER *` grants nothing, nested groups expanded cycle-safely,
 * inactive users reported apart); a test runs this very file against `EffectiveAccess` on random
 * graphs so the two cannot drift.
 *
 * Plain JavaScript rather than TypeScript so that the bytes inlined into the page (and hashed into
 * its Content-Security-Policy) are the bytes of this file, from src/ under tests and from the built
 * program alike, with no compile step in between; it is still type-checked (`// @ts-check`, JSDoc,
 * the DOM library: tsconfig.json in this folder, run by `npm run lint`) and linted by ESLint.
 */

/** @typedef {[type: string, id: string]} Member */
/** @typedef {[type: string, id: string, action: string | null]} Permission */
/**
 * @typedef {{ users: Array<{ id: string, email?: string | null, name?: string | null, active: boolean }>,
 *   groups: Array<{ id: string, name?: string | null, members: Member[] }>,
 *   files: Array<{ id: string, name?: string | null, status?: string | null, mime?: string | null, permissions: Permission[] }> }} AccessGraph
 */
/** @typedef {{ user: number, via: string }} UserGrant */
/** @typedef {{ everyone: boolean, users: UserGrant[], inactive: UserGrant[], unresolved: Permission[], ignored: Permission[] }} WhoCanSee */
/** @typedef {{ file: number, via: string }} FileGrant */

/**
 * @param {AccessGraph} d the page's access graph
 * @returns {{ whoCanSee(fileIndex: number): WhoCanSee, whatCanSee(userIndex: number): FileGrant[] }} answers by index into `d`
 */
function buildAccess(d) {
  /** @type {Map<string, number>} */
  const userIndex = new Map();
  d.users.forEach((u, i) => {
    if (!userIndex.has(u.id)) userIndex.set(u.id, i);
  });
  /** @type {Map<string, Member[]>} */
  const members = new Map();
  /** @type {Map<string, string[]>} */
  const parents = new Map();
  d.groups.forEach((g) => {
    if (members.has(g.id)) return;
    members.set(g.id, g.members);
    g.members.forEach((m) => {
      if (m[0] !== 'USER' && m[0] !== 'GROUP') return;
      const key = m[0] + ' ' + m[1];
      const list = parents.get(key) || [];
      list.push(g.id);
      parents.set(key, list);
    });
  });

  /** @param {Permission} p */
  function classify(p) {
    if (p[2] !== 'VIEW') return 'ignored';
    if (p[0] === 'GROUP') return p[1] === '*' ? 'wildcard' : 'group';
    if (p[0] === 'USER') return p[1] === '*' ? 'ignored' : 'user';
    return 'ignored';
  }

  /** @type {Map<string, Set<string>>} */
  const closures = new Map();
  /** @param {string} groupId */
  function usersInGroup(groupId) {
    const cached = closures.get(groupId);
    if (cached) return cached;
    /** @type {Set<string>} */
    const users = new Set();
    const seen = new Set([groupId]);
    const queue = [groupId];
    while (queue.length) {
      for (const m of members.get(/** @type {string} */ (queue.pop())) || []) {
        if (m[0] === 'USER') users.add(m[1]);
        else if (m[0] === 'GROUP' && !seen.has(m[1])) {
          seen.add(m[1]);
          queue.push(m[1]);
        }
      }
    }
    closures.set(groupId, users);
    return users;
  }

  /** @param {string} userId */
  function groupsOfUser(userId) {
    const queue = (parents.get('USER ' + userId) || []).slice();
    const groups = new Set(queue);
    while (queue.length) {
      for (const up of parents.get('GROUP ' + queue.pop()) || []) {
        if (!groups.has(up)) {
          groups.add(up);
          queue.push(up);
        }
      }
    }
    return groups;
  }

  /** @param {number} fileIndex @returns {WhoCanSee} */
  function whoCanSee(fileIndex) {
    const file = d.files[fileIndex];
    /** @type {WhoCanSee} */
    const out = { everyone: false, users: [], inactive: [], unresolved: [], ignored: [] };
    /** @type {Map<string, string>} */
    const via = new Map();
    /** @param {string} userId @param {string} how */
    const grant = (userId, how) => {
      if (!via.has(userId) && userIndex.has(userId)) via.set(userId, how);
    };
    file.permissions.forEach((p) => {
      const kind = classify(p);
      if (kind === 'ignored') out.ignored.push(p);
      else if (kind === 'wildcard') out.everyone = true;
      else if (kind === 'user') {
        if (userIndex.has(p[1])) grant(p[1], 'USER ' + p[1]);
        else out.unresolved.push(p);
      } else if (!members.has(p[1])) out.unresolved.push(p);
      else usersInGroup(p[1]).forEach((u) => grant(u, 'GROUP ' + p[1]));
    });
    if (out.everyone) userIndex.forEach((_i, id) => grant(id, 'GROUP *'));
    via.forEach((how, id) => {
      const i = /** @type {number} */ (userIndex.get(id));
      (d.users[i].active ? out.users : out.inactive).push({ user: i, via: how });
    });
    return out;
  }

  /** @param {number} uIndex @returns {FileGrant[]} */
  function whatCanSee(uIndex) {
    const user = d.users[uIndex];
    const groups = groupsOfUser(user.id);
    /** @type {FileGrant[]} */
    const out = [];
    d.files.forEach((file, fileIndex) => {
      if (file.status === 'deleted') return;
      for (const p of file.permissions) {
        const kind = classify(p);
        const how =
          kind === 'wildcard'
            ? 'GROUP *'
            : kind === 'user' && p[1] === user.id
              ? 'USER ' + p[1]
              : kind === 'group' && groups.has(p[1])
                ? 'GROUP ' + p[1]
                : undefined;
        if (how) {
          out.push({ file: fileIndex, via: how });
          return;
        }
      }
    });
    return out;
  }

  return { whoCanSee, whatCanSee };
}

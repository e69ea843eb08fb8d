/**
 * The access computation of the HTML report's explorer, as browser JavaScript (ES2015). It mirrors
 * `EffectiveAccess` (same rules: VIEW only, `GROUP *` is every user, `USER *` grants nothing,
 * nested groups expanded cycle-safely, inactive users reported apart); a test runs this very text
 * against `EffectiveAccess` on random graphs so the two cannot drift.
 *
 * `buildAccess(d)` takes `{users: [{id, email, name, active}], groups: [{id, members: [[type, id]]}],
 * files: [{id, name, status, permissions: [[type, id, action]]}]}` and returns
 * `{whoCanSee(fileIndex), whatCanSee(userIndex)}` with indexes into those arrays.
 */
export const ACCESS_EXPLORER_CORE = String.raw`
function buildAccess(d) {
  var userIndex = new Map();
  d.users.forEach(function (u, i) { if (!userIndex.has(u.id)) userIndex.set(u.id, i); });
  var members = new Map();
  var parents = new Map();
  d.groups.forEach(function (g) {
    if (members.has(g.id)) return;
    members.set(g.id, g.members);
    g.members.forEach(function (m) {
      if (m[0] !== 'USER' && m[0] !== 'GROUP') return;
      var key = m[0] + ' ' + m[1];
      if (!parents.has(key)) parents.set(key, []);
      parents.get(key).push(g.id);
    });
  });
  function classify(p) {
    if (p[2] !== 'VIEW') return 'ignored';
    if (p[0] === 'GROUP') return p[1] === '*' ? 'wildcard' : 'group';
    if (p[0] === 'USER') return p[1] === '*' ? 'ignored' : 'user';
    return 'ignored';
  }
  var closures = new Map();
  function usersInGroup(groupId) {
    if (closures.has(groupId)) return closures.get(groupId);
    var users = new Set();
    var seen = new Set([groupId]);
    var queue = [groupId];
    while (queue.length) {
      var list = members.get(queue.pop()) || [];
      for (var i = 0; i < list.length; i++) {
        var m = list[i];
        if (m[0] === 'USER') users.add(m[1]);
        else if (m[0] === 'GROUP' && !seen.has(m[1])) { seen.add(m[1]); queue.push(m[1]); }
      }
    }
    closures.set(groupId, users);
    return users;
  }
  function groupsOfUser(userId) {
    var groups = new Set();
    var queue = (parents.get('USER ' + userId) || []).slice();
    queue.forEach(function (g) { groups.add(g); });
    while (queue.length) {
      var up = parents.get('GROUP ' + queue.pop()) || [];
      for (var i = 0; i < up.length; i++) if (!groups.has(up[i])) { groups.add(up[i]); queue.push(up[i]); }
    }
    return groups;
  }
  function whoCanSee(fileIndex) {
    var file = d.files[fileIndex];
    var out = { everyone: false, users: [], inactive: [], unresolved: [], ignored: [] };
    var via = new Map();
    function grant(userId, how) { if (!via.has(userId) && userIndex.has(userId)) via.set(userId, how); }
    file.permissions.forEach(function (p) {
      var kind = classify(p);
      if (kind === 'ignored') out.ignored.push(p);
      else if (kind === 'wildcard') out.everyone = true;
      else if (kind === 'user') { if (userIndex.has(p[1])) grant(p[1], 'USER ' + p[1]); else out.unresolved.push(p); }
      else if (!members.has(p[1])) out.unresolved.push(p);
      else usersInGroup(p[1]).forEach(function (u) { grant(u, 'GROUP ' + p[1]); });
    });
    if (out.everyone) userIndex.forEach(function (_i, id) { grant(id, 'GROUP *'); });
    via.forEach(function (how, id) {
      var i = userIndex.get(id);
      (d.users[i].active ? out.users : out.inactive).push({ user: i, via: how });
    });
    return out;
  }
  function whatCanSee(uIndex) {
    var user = d.users[uIndex];
    var groups = groupsOfUser(user.id);
    var out = [];
    d.files.forEach(function (file, fileIndex) {
      if (file.status === 'deleted') return;
      for (var i = 0; i < file.permissions.length; i++) {
        var p = file.permissions[i];
        var kind = classify(p);
        var how = kind === 'wildcard' ? 'GROUP *' : kind === 'user' && p[1] === user.id ? 'USER ' + p[1] : kind === 'group' && groups.has(p[1]) ? 'GROUP ' + p[1] : undefined;
        if (how) { out.push({ file: fileIndex, via: how }); return; }
      }
    });
    return out;
  }
  return { whoCanSee: whoCanSee, whatCanSee: whatCanSee };
}
`;

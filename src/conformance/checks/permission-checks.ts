import { fail, warn, type Finding } from '../finding';
import { outcome, plural, type CheckInput } from './check-input';

/** Access lists: the model, readable lists, VIEW only, the wildcard's one form, resolvable principals. */
export function permissionChecks(input: CheckInput): Finding[] {
  const { crawl } = input;
  const metadata: Finding[] = [];
  const m = crawl.metadata;
  if (!m) metadata.push(fail('permissions.metadata', '/v1/files/permissions/metadata was not read.'));
  else if (m.status === 404)
    metadata.push(warn('permissions.metadata', 'The permission-model endpoint is not implemented (404).', { url: m.url, field: 'status', value: 404 }));
  else if (m.status !== 200)
    metadata.push(fail('permissions.metadata', `The permission-model endpoint answered ${m.status}.`, { url: m.url, field: 'status', value: m.status }));
  else if (m.model !== 'resource_permission')
    metadata.push(
      fail('permissions.metadata', "model must be 'resource_permission' (the only model the platform supports).", {
        url: m.url,
        field: 'model',
        value: m.model,
      }),
    );

  const userIds = new Set(crawl.users.map((u) => u.id));
  const groupIds = new Set(crawl.groups.map((g) => g.id));
  const endpoint: Finding[] = [];
  const view: Finding[] = [];
  const wildcard: Finding[] = [];
  const empty: Finding[] = [];
  const resolve: Finding[] = [];
  let entries = 0;
  let lists = 0;
  for (const f of crawl.files) {
    const p = f.permissions;
    if (!p) continue;
    const id = f.listing.id;
    if (p.status !== 200) {
      const e = { url: p.url, field: 'status', value: p.status };
      if (p.status === 404) endpoint.push(warn('permissions.endpoint', `File ${id}: access list not found (404); only "Public to all" can work.`, e));
      else endpoint.push(fail('permissions.endpoint', `File ${id}: access list answered ${p.status}${p.error ? ` (${p.error})` : ''}.`, e));
      if (p.pages === 0) continue;
    }
    lists++;
    entries += p.entries.length;
    if (p.entries.length === 0 && f.listing.status !== 'deleted')
      empty.push(
        warn('permissions.non-empty', `File ${id}: the access list is empty, so nobody can see the file.`, {
          url: p.url,
          field: 'value.permissions',
          value: '[]',
        }),
      );
    for (const entry of p.entries) {
      const e = { url: p.url, field: 'value.permissions', value: entry };
      if (entry.action !== 'VIEW')
        view.push(fail('permissions.view-only', `File ${id}: action ${JSON.stringify(entry.action ?? null)}; only VIEW is evaluated.`, e));
      if (entry.id === '*') {
        if (entry.type !== 'GROUP')
          wildcard.push(fail('permissions.wildcard', `File ${id}: {type: ${entry.type}, id: "*"} grants nothing; everyone is {type: GROUP, id: "*"}.`, e));
        continue;
      }
      if (entry.type === 'USER' && !userIds.has(entry.id))
        resolve.push(fail('permissions.principals-resolve', `File ${id}: USER ${entry.id} is not a user served by /v1/users; the grant reaches nobody.`, e));
      else if (entry.type === 'GROUP' && !groupIds.has(entry.id))
        resolve.push(fail('permissions.principals-resolve', `File ${id}: GROUP ${entry.id} is not a group served by /v1/groups; the grant reaches nobody.`, e));
      else if (entry.type !== 'USER' && entry.type !== 'GROUP')
        resolve.push(fail('permissions.principals-resolve', `File ${id}: type ${JSON.stringify(entry.type)} is neither USER nor GROUP.`, e));
    }
  }
  return [
    ...outcome('permissions.metadata', metadata, "the permission model is 'resource_permission'"),
    ...outcome('permissions.endpoint', endpoint, `${plural(lists, 'access list')} read`),
    ...outcome('permissions.view-only', view, `all ${plural(entries, 'entry', 'entries')} are VIEW`),
    ...outcome('permissions.wildcard', wildcard, 'the wildcard, where used, is GROUP *'),
    ...outcome('permissions.non-empty', empty, 'every active file has at least one access entry'),
    ...outcome('permissions.principals-resolve', resolve, 'every entry names a served user or group'),
  ];
}

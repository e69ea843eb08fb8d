import type { MockClient } from './mock-client';

/**
 * What the work-management mock's oracle says each served object's audience is, keyed
 * `<prefix>task:<gid>` / `<prefix>attachment:<gid>`, people as normalised emails (the gateway serves
 * one user per person and the platform maps users by email). An attachment the gateway does not
 * serve is expected only when the platform could have indexed it (type, stored by the service):
 * `served` says which ids the gateway serves.
 */
export async function workManagementExpected(client: MockClient, workspace: string, served: ReadonlySet<string>, prefix = ''): Promise<Map<string, string[]>> {
  const emails = await client.userEmails(workspace);
  const expected = new Map<string, string[]>();
  for (const [gid, users] of await client.visibility('task')) expected.set(`${prefix}task:${gid}`, await emails(users));
  for (const [gid, users] of await client.visibility('attachment')) {
    const id = `${prefix}attachment:${gid}`;
    if (served.has(id)) {
      expected.set(id, await emails(users));
      continue;
    }
    const a = await client.request<{ data: { name: string; host: string } }>('GET', `/api/1.0/attachments/${gid}?opt_fields=name,host`);
    if (a.data.host === 'asana' && /\.(pdf|docx|pptx|txt)$/i.test(a.data.name)) expected.set(id, await emails(users));
  }
  return expected;
}

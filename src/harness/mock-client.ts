/**
 * The harness's HTTP view of the work-management mock: its public API for picking what to change,
 * its private `/_oracle` for who may see what, and `/_admin` for changing the organization.
 */
export class MockClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string,
  ) {}

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    return (await res.json()) as T;
  }

  /** Every page of a public-API list (`limit`/`offset` paging). */
  async list<T>(path: string): Promise<T[]> {
    const out: T[] = [];
    let offset: string | undefined;
    do {
      const sep = path.includes('?') ? '&' : '?';
      const page = await this.request<{ data: T[]; next_page: { offset: string } | null }>('GET', `/api/1.0${path}${sep}limit=100${offset ? `&offset=${encodeURIComponent(offset)}` : ''}`);
      out.push(...page.data);
      offset = page.next_page?.offset;
    } while (offset);
    return out;
  }

  /** The oracle's verdict for every object of a type: gid → visible user gids. */
  async visibility(type: 'task' | 'attachment'): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    let offset: number | null = 0;
    while (offset !== null) {
      const page: { data: Array<{ gid: string; visible_to: string[] }>; next_offset: number | null } = await this.request('GET', `/_oracle/visibility/all?type=${type}&offset=${offset}&limit=10000`);
      for (const row of page.data) out.set(row.gid, row.visible_to);
      offset = page.next_offset;
    }
    return out;
  }
}

/**
 * What the platform's crawler does with a gateway's files: every page of `/v1/files` (following
 * `@odata.nextLink`), then every file's access list (all its pages), over loopback HTTP.
 */
export interface CrawledFile {
  id: string;
  name: string;
  status: string;
  mimeType: string;
  lastModified: string;
  downloadPath?: string;
  /** `TYPE id` strings, sorted. */
  access: string[];
}

interface Page<T> {
  value: T;
  '@odata.nextLink'?: string;
}

async function getJson<T>(url: string, key: string): Promise<T> {
  const res = await fetch(url, { headers: { Authorization: `Bearer ${key}` } });
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  return (await res.json()) as T;
}

export async function crawlFiles(base: string, key: string, options: { concurrency?: number; pageSize?: number } = {}): Promise<Map<string, CrawledFile>> {
  const files = new Map<string, CrawledFile>();
  let url: string | undefined = `${base}/v1/files?$top=${options.pageSize ?? 1000}`;
  while (url) {
    const page: Page<
      Array<{ id: string; name: string; status: string; last_modified_datetime: string; content: { mime_type: string; download_path?: string } }>
    > = await getJson(url, key);
    for (const f of page.value) {
      if (files.has(f.id)) throw new Error(`${f.id} listed twice`);
      files.set(f.id, {
        id: f.id,
        name: f.name,
        status: f.status,
        mimeType: f.content.mime_type,
        lastModified: f.last_modified_datetime,
        ...(f.content.download_path ? { downloadPath: f.content.download_path } : {}),
        access: [],
      });
    }
    url = page['@odata.nextLink'];
  }
  const queue = [...files.values()];
  const worker = async (): Promise<void> => {
    for (let file = queue.pop(); file; file = queue.pop()) {
      const access: string[] = [];
      let next: string | undefined = `${base}/v1/files/${encodeURIComponent(file.id)}/permissions`;
      while (next) {
        const page: Page<{ permissions: Array<{ type: string; id: string; action: string }> }> = await getJson(next, key);
        for (const p of page.value.permissions) {
          if (p.action !== 'VIEW') throw new Error(`${file.id}: action ${p.action}`);
          access.push(`${p.type} ${p.id}`);
        }
        next = page['@odata.nextLink'];
      }
      file.access = access.sort();
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 16 }, worker));
  return files;
}

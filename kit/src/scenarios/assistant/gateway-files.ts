/**
 * Every file the gateway lists (active and deleted), by external URL: a citation carries only
 * the URL the platform sends a reader to, so this is how the scenario knows which file it names.
 */
export async function gatewayFilesByUrl(gatewayUrl: string, key: string): Promise<Map<string, string>> {
  const byUrl = new Map<string, string>();
  let next: string | undefined = `${gatewayUrl}/v1/files?$top=1000`;
  while (next) {
    const res = await fetch(next, { headers: { authorization: `Bearer ${key}` } });
    if (!res.ok) throw new Error(`GET /v1/files: ${res.status} ${(await res.text()).slice(0, 200)}`);
    const page = (await res.json()) as { value: Array<{ id: string; external_url: string }>; '@odata.nextLink'?: string };
    for (const f of page.value) {
      const other = byUrl.get(f.external_url);
      if (other !== undefined && other !== f.id)
        throw new Error(`files ${other} and ${f.id} share the external URL ${f.external_url}: citations of it cannot be told apart`);
      byUrl.set(f.external_url, f.id);
    }
    next = page['@odata.nextLink'];
  }
  return byUrl;
}

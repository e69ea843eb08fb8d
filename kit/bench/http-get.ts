import http from 'node:http';

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One GET over the given (keep-alive) agent, body buffered. */
export function httpGet(url: string, agent: http.Agent, headers: Record<string, string> = {}): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** GET and parse a JSON body; throws on a non-200 answer so a broken setup fails loudly. */
export async function getJson<T>(url: string, agent: http.Agent, headers: Record<string, string> = {}): Promise<T> {
  const res = await httpGet(url, agent, headers);
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
  return JSON.parse(res.body.toString('utf8')) as T;
}

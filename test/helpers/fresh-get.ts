import http from 'node:http';

export interface FreshResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  bytes: Buffer;
}

/**
 * A GET on a connection of its own (no keep-alive agent), so consecutive requests to a gateway
 * with several workers are spread over them like separate clients' requests. A refused or reset
 * connection rejects.
 */
export function freshGet(url: string, headers: Record<string, string> = {}): Promise<FreshResponse> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: bytes.toString('utf8'), bytes });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error(`GET ${url} timed out`)));
  });
}

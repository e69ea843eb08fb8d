import net from 'node:net';

/** One answer read off a pipelined connection. */
export interface PipelinedAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Sends `count` GET requests for `paths` (round-robin) on one keep-alive connection, keeping up to
 * `depth` of them in flight (HTTP/1.1 pipelining: the next request is on the wire before the
 * previous answer has been read), and resolves with every answer's status in order. What a crawler
 * on a keep-alive pool does when it sends its next request as soon as the previous one is out.
 * Answers must carry `Content-Length` (every gateway answer does).
 */
export function pipelinedConnection(
  url: string,
  options: { paths: readonly string[]; count: number; depth: number; headers: Record<string, string> },
): Promise<PipelinedAnswer[]> {
  const { hostname, port } = new URL(url);
  const head = Object.entries(options.headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  const request = (i: number) => `GET ${options.paths[i % options.paths.length]} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${head}\r\n`;
  return new Promise((resolve, reject) => {
    const answers: PipelinedAnswer[] = [];
    const socket = net.connect(Number(port), hostname);
    let sent = 0;
    let buffer = Buffer.alloc(0);
    const send = (): void => {
      let batch = '';
      while (sent < options.count && sent - answers.length < options.depth) batch += request(sent++);
      if (batch) socket.write(batch);
    };
    socket.on('connect', send);
    socket.on('error', reject);
    socket.on('close', () => {
      if (answers.length < options.count) reject(new Error(`connection closed after ${answers.length} of ${options.count} answers`));
    });
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const [statusLine = '', ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n');
        const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
        const length = Number(headers['content-length'] ?? 0);
        if (buffer.length < end + 4 + length) return;
        answers.push({ status: Number(statusLine.split(' ')[1]), headers, body: buffer.subarray(end + 4, end + 4 + length) });
        buffer = buffer.subarray(end + 4 + length);
        if (answers.length === options.count) {
          socket.end();
          resolve(answers);
          return;
        }
        send();
      }
    });
  });
}

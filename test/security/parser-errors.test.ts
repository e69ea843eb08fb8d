import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import helmet from 'helmet';
import pino from 'pino';
import selfsigned from 'selfsigned';
import { FsBlobStore } from '../../src/blobs/fs-blob-store';
import { createApp } from '../../src/http/create-app';
import { answerClientErrors } from '../../src/http/answer-client-errors';
import { useBuiltProgram } from '../helpers/built-program';
import { rawExchange, type RawResponse } from '../helpers/raw-http';
import { createTestDatabase } from '../helpers/test-databases';
import { AUTH, TEST_KEYS, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { htmlFile } from '../helpers/staging-fixtures';

/** What helmet itself sets on a response (HSTS only over HTTPS), recorded independently of the gateway. */
function helmetHeaders(secure: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  const res = { setHeader: (name: string, value: string) => (headers[name.toLowerCase()] = String(value)), removeHeader: () => undefined };
  const middlewares = [
    helmet({ strictTransportSecurity: false }),
    ...(secure ? [helmet.strictTransportSecurity({ maxAge: 31_536_000, includeSubDomains: true })] : []),
  ];
  for (const m of middlewares) m({} as IncomingMessage, res as unknown as ServerResponse, () => undefined);
  return headers;
}

/**
 * A well-formed HTTP/1.1 answer in the error envelope: JSON, a Content-Length that matches, the
 * connection closed, helmet's headers and a request id, whoever wrote it (the app or the guard
 * in front of it).
 */
function expectEnvelope(res: RawResponse | undefined, status: number, code: string, options: { secure?: boolean; close?: boolean } = {}): void {
  expect(res).toBeDefined();
  if (!res) return;
  expect(res.statusLine).toMatch(new RegExp(`^HTTP/1\\.1 ${status} [A-Za-z]`));
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
  if (options.close !== false) expect(res.headers.connection).toBe('close');
  expect(res.headers['x-request-id']).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
  for (const [name, value] of Object.entries(helmetHeaders(options.secure ?? false))) expect({ name, value: res.headers[name] }).toEqual({ name, value });
  if (!options.secure) expect(res.headers['strict-transport-security']).toBeUndefined();
  const body = JSON.parse(res.body) as { error: { code: string; message: string } };
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message']);
  expect(body.error.code).toBe(code);
  expect(body.error.message.length).toBeGreaterThan(10);
}

const KEY = TEST_KEYS[0];

/** Requests Node's HTTP parser (or its server) refuses before the app sees them. */
function parserCases(host: string): Array<[string, string | Buffer, number, string]> {
  return [
    [
      'raw UTF-8 in the path',
      Buffer.concat([
        Buffer.from('GET /v1/files/'),
        Buffer.from('é', 'utf8'),
        Buffer.from(` HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${KEY}\r\n\r\n`),
      ]),
      400,
      'INPUT_VALIDATION_FAILED',
    ],
    ['an unknown method', `FOO /v1/files HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${KEY}\r\n\r\n`, 400, 'INPUT_VALIDATION_FAILED'],
    ['a lower-case method', `get /v1/files HTTP/1.1\r\nHost: ${host}\r\n\r\n`, 400, 'INPUT_VALIDATION_FAILED'],
    [
      'a 20 KB header',
      `GET /v1/files HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${KEY}\r\nX-Padding: ${'x'.repeat(20_000)}\r\n\r\n`,
      431,
      'REQUEST_HEADERS_TOO_LARGE',
    ],
    ['a 20 KB URL', `GET /v1/files?$filter=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: ${host}\r\n\r\n`, 431, 'REQUEST_HEADERS_TOO_LARGE'],
    [
      'Content-Length with Transfer-Encoding',
      `GET /v1/files HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      400,
      'INPUT_VALIDATION_FAILED',
    ],
    ['two Content-Lengths', `GET /v1/files HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab`, 400, 'INPUT_VALIDATION_FAILED'],
    ['a control character in the query', `GET /v1/files?a=\u0001 HTTP/1.1\r\nHost: ${host}\r\n\r\n`, 400, 'INPUT_VALIDATION_FAILED'],
    ['a header without a colon', `GET /v1/files HTTP/1.1\r\nHost: ${host}\r\nno colon here\r\n\r\n`, 400, 'INPUT_VALIDATION_FAILED'],
    ['a NUL in a header value', `GET /v1/files HTTP/1.1\r\nHost: ${host}\r\nX-Request-Id: a\u0000b\r\n\r\n`, 400, 'INPUT_VALIDATION_FAILED'],
    ['garbage', 'garbage\r\n\r\n', 400, 'INPUT_VALIDATION_FAILED'],
    ['an unknown HTTP version', `GET /v1/files HTTP/9.9\r\nHost: ${host}\r\n\r\n`, 400, 'INPUT_VALIDATION_FAILED'],
    ['no Host (HTTP/1.1)', `GET /v1/files HTTP/1.1\r\nAuthorization: Bearer ${KEY}\r\n\r\n`, 400, 'INPUT_VALIDATION_FAILED'],
    ['CONNECT', `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nAuthorization: Bearer ${KEY}\r\n\r\n`, 405, 'METHOD_NOT_ALLOWED'],
  ];
}

describe('what the HTTP parser refuses gets the error envelope and the security headers', () => {
  let gw: TestGateway;
  let host: string;
  beforeAll(async () => {
    gw = await startTestGateway('sqlite');
    await gw.writer.putFiles([{ file: htmlFile('test:a'), permissions: [] }]);
    host = new URL(gw.url).host;
  });
  afterAll(() => gw.close());

  it("sends helmet's headers on an ordinary answer too (the baseline the parser answers are held to)", async () => {
    const { responses } = await rawExchange(
      gw.url,
      `GET /v1/files/nope HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${KEY}\r\nConnection: close\r\n\r\n`,
    );
    expectEnvelope(responses[0], 404, 'NOT_FOUND');
  });

  it.each(parserCases('host').map(([name]) => name))('answers %s with a well-formed response in the envelope and closes', async (which) => {
    const [name, request, status, code] = parserCases(host).find(([n]) => n === which) as [string, string | Buffer, number, string];
    const { responses, rest, closed } = await rawExchange(gw.url, request);
    expect({ name, count: responses.length, rest }).toEqual({ name, count: 1, rest: '' });
    expectEnvelope(responses[0], status, code);
    if (code === 'METHOD_NOT_ALLOWED') expect(responses[0]?.headers.allow).toBe('GET');
    expect(closed).toBe(true);
  });

  it('logs each refusal under its request id, without the request (no credential reaches a log line)', async () => {
    const before = gw.logLines.length;
    const { responses } = await rawExchange(gw.url, `FOO /v1/files?token=${KEY} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${KEY}\r\n\r\n`);
    const id = responses[0]?.headers['x-request-id'] ?? 'none';
    await new Promise((r) => setTimeout(r, 50));
    const lines = gw.logLines.slice(before);
    expect(lines.some((l) => l.includes(id) && l.includes('"statusCode":400'))).toBe(true);
    for (const key of TEST_KEYS) expect(gw.logLines.filter((l) => l.includes(key))).toEqual([]);
  });

  it('answers a bad request pipelined behind a good one after the good one, intact', async () => {
    const good = `GET /v1/files/test%3Aa HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${KEY}\r\n\r\n`;
    const { responses, closed } = await rawExchange(gw.url, `${good}FOO / HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    expect(responses.map((r) => r.status)).toEqual([200, 400]);
    expect(JSON.parse(responses[0]?.body ?? '{}').value.id).toBe('test:a');
    expectEnvelope(responses[1], 400, 'INPUT_VALIDATION_FAILED');
    expect(closed).toBe(true);
  });

  it('serves a request with an Expect it does not know instead of a bare 417', async () => {
    const { responses } = await rawExchange(
      gw.url,
      `GET /v1/files/test%3Aa HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${KEY}\r\nExpect: something-else\r\nConnection: close\r\n\r\n`,
    );
    expect(responses.map((r) => r.status)).toEqual([200]);
  });

  it("refuses a URL over MAX_URL_LENGTH (and under the parser's limit) with 414 URI_TOO_LONG, as the README says", async () => {
    const res = await gw.get(`/v1/files?$filter=${'a'.repeat(9000)}`, AUTH);
    expect(res.status).toBe(414);
    expect(res.body.error.code).toBe('URI_TOO_LONG');
    expect(res.body.error.message).toMatch(/longer than 8192/);
  });

  it('answers a client too slow to send its headers with 408 in the envelope', async () => {
    const database = await createTestDatabase('sqlite');
    const blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-blobs-'));
    const logger = pino({ level: 'silent' });
    const { app } = await createApp({
      config: { publicBaseUrl: undefined },
      db: database.db,
      blobs: new FsBlobStore(blobDir),
      logger,
      apiKeys: TEST_KEYS,
      skipTokenSecret: crypto.randomBytes(32).toString('hex'),
    });
    const server = http.createServer({ headersTimeout: 300, requestTimeout: 600, connectionsCheckingInterval: 50 }, app);
    answerClientErrors(server, logger);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { responses, closed } = await rawExchange(url, 'GET /v1/files HTTP/1.1\r\nHost: x\r\n', { waitMs: 3000 });
      expectEnvelope(responses[0], 408, 'REQUEST_TIMEOUT');
      expect(closed).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await database.destroy();
      fs.rmSync(blobDir, { recursive: true, force: true });
    }
  });
});

const ROOT = path.join(__dirname, '../..');
const MAIN = useBuiltProgram();

function serve(env: Record<string, string>): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [MAIN, 'serve'], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env }, cwd: ROOT });
}

function listening(child: ChildProcessWithoutNullStreams, output: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output.push(chunk.toString());
      const m = /listening on (https?):\/\/localhost:(\d+)\//.exec(output.join(''));
      if (m) resolve(`${m[1]}://127.0.0.1:${m[2]}`);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${output.join('')}`)));
  });
}

describe('the serve command guards both of its servers', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-parser-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it.each(['http', 'https'] as const)('answers parser errors in the envelope over %s (HSTS over HTTPS)', async (scheme) => {
    const pems =
      scheme === 'https'
        ? selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
            days: 1,
            keySize: 2048,
            extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }] }],
          })
        : undefined;
    if (pems) {
      fs.writeFileSync(path.join(dir, 'cert.pem'), pems.cert);
      fs.writeFileSync(path.join(dir, 'key.pem'), pems.private);
    }
    const key = 'serve-guard-key-0123456789abcdef';
    const output: string[] = [];
    const child = serve({
      PORT: '0',
      SQLITE_PATH: path.join(dir, 'gw.sqlite'),
      BLOB_DIR: path.join(dir, 'blobs'),
      GATEWAY_API_KEY: key,
      DEMO_CONTENT: 'off',
      ...(pems ? { TLS_CERT_FILE: path.join(dir, 'cert.pem'), TLS_KEY_FILE: path.join(dir, 'key.pem') } : {}),
    });
    try {
      const url = await listening(child, output);
      expect(url.startsWith(`${scheme}:`)).toBe(true);
      const options = pems ? { ca: pems.cert } : {};
      const secure = scheme === 'https';
      const [unknownMethod, bigHeader, noHost, connect] = await Promise.all([
        rawExchange(url, `FOO /v1/files HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n\r\n`, options),
        rawExchange(url, `GET /v1/files HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nX-Padding: ${'x'.repeat(20_000)}\r\n\r\n`, options),
        rawExchange(url, `GET /v1/files HTTP/1.1\r\nAuthorization: Bearer ${key}\r\n\r\n`, options),
        rawExchange(url, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', options),
      ]);
      expectEnvelope(unknownMethod.responses[0], 400, 'INPUT_VALIDATION_FAILED', { secure });
      expectEnvelope(bigHeader.responses[0], 431, 'REQUEST_HEADERS_TOO_LARGE', { secure });
      expectEnvelope(noHost.responses[0], 400, 'INPUT_VALIDATION_FAILED', { secure });
      expectEnvelope(connect.responses[0], 405, 'METHOD_NOT_ALLOWED', { secure });
      await new Promise((r) => setTimeout(r, 100));
      expect(output.join('')).not.toContain(key);
    } finally {
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
});

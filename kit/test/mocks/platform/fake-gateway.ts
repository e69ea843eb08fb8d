/**
 * A small stateful gateway for the ingest rules: `/v1` served from plain objects a test changes
 * between ingests, short pages with absolute nextLinks, a switchable 429 with Retry-After, an
 * OAuth token endpoint, and a log of every request (to count downloads).
 */
import fs from 'node:fs';
import path from 'node:path';
import express from 'express';
import { DEMO_CORPUS_DIR } from 'content-gateway';
import { listenOnLoopback } from 'content-gateway/lib';

export interface FakeFile {
  id: string;
  name: string;
  mime: string;
  html?: string;
  bytes?: Buffer;
  modified: string;
  status?: 'active' | 'deleted';
  permissions: Array<{ type: string; id: string; action?: string }>;
}

export interface FakeState {
  files: FakeFile[];
  users: Array<{ id: string; primary_email_addr: string; full_name?: string; state?: string }>;
  groups: Array<{ id: string; name: string; members: Array<{ type: string; id: string }> }>;
  model: string;
  pageSize: number;
  /** The next this many requests answer 429 with `Retry-After: <retryAfter>`. */
  throttle: number;
  retryAfter: string;
  oauth?: { clientId: string; clientSecret: string };
}

export interface FakeGateway {
  url: string;
  key: string;
  state: FakeState;
  log: string[];
  close(): Promise<void>;
}

const CORPUS = DEMO_CORPUS_DIR;
export const DEMO_BYTES = {
  pdf: () => fs.readFileSync(path.join(CORPUS, 'engineering/incident-response-runbook.pdf')),
  docx: () => fs.readFileSync(path.join(CORPUS, 'hr/salary-bands-2025.docx')),
  pptx: () => fs.readFileSync(path.join(CORPUS, 'company/all-hands-2025-q3.pptx')),
};

export const MIMES = {
  html: 'text/html',
  txt: 'text/plain',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

function page<T>(req: express.Request, items: T[], size: number, base: string): Record<string, unknown> {
  const skip = Number(req.query.$skip ?? 0);
  const out: Record<string, unknown> = { '@odata.context': `${base}/v1/$metadata`, value: items.slice(skip, skip + size) };
  if (skip + size < items.length) out['@odata.nextLink'] = `${base}${req.path}?$skip=${skip + size}`;
  return out;
}

export async function startFakeGateway(initial: Partial<FakeState> = {}): Promise<FakeGateway> {
  const key = 'fake-gateway-key';
  const state: FakeState = { files: [], users: [], groups: [], model: 'resource_permission', pageSize: 2, throttle: 0, retryAfter: '1', ...initial };
  const log: string[] = [];
  const tokens = new Set<string>();
  const app = express();
  let base = '';
  app.post('/oauth2/token', express.urlencoded({ extended: false }), (req, res) => {
    const basic = Buffer.from(String(req.get('authorization') ?? '').replace(/^Basic\s+/i, ''), 'base64').toString();
    if (!state.oauth || basic !== `${state.oauth.clientId}:${state.oauth.clientSecret}` || req.body.grant_type !== 'client_credentials')
      return void res.status(401).json({ error: 'invalid_client' });
    const token = `tok-${tokens.size + 1}`;
    tokens.add(token);
    res.json({ access_token: token, token_type: 'Bearer', expires_in: 3600 });
  });
  app.use('/v1', (req, res, next) => {
    log.push(`${req.method} ${req.originalUrl}`);
    const bearer = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
    if (!bearer || (bearer !== key && !tokens.has(bearer))) return void res.status(401).json({ error: { code: 'AUTHENTICATION_FAILED', message: 'no' } });
    if (state.throttle > 0) {
      state.throttle--;
      return void res
        .status(429)
        .set('retry-after', state.retryAfter)
        .json({ error: { code: 'RATE_LIMIT_EXCEEDED', message: 'slow down' } });
    }
    next();
  });
  const file = (id: string) => state.files.find((f) => f.id === id);
  const listing = (f: FakeFile) => ({
    id: f.id,
    name: f.name,
    external_url: `https://docs.example/${f.id}`,
    last_modified_datetime: f.modified,
    status: f.status ?? 'active',
    content: { mime_type: f.mime, ...(f.bytes ? { size: f.bytes.length } : {}) },
  });
  app.get('/v1/files/permissions/metadata', (_req, res) => void res.json({ model: state.model }));
  app.get('/v1/files', (req, res) => void res.json(page(req, state.files.map(listing), state.pageSize, base)));
  app.get('/v1/files/:id', (req, res) => {
    const f = file(req.params.id);
    if (!f) return void res.status(404).json({ error: { code: 'NOT_FOUND', message: 'no' } });
    res.json({ value: { ...listing(f), content: { ...listing(f).content, ...(f.html !== undefined ? { body: f.html } : {}) } } });
  });
  app.get('/v1/files/:id/download', (req, res) => {
    const f = file(req.params.id);
    if (!f?.bytes) return void res.status(404).json({ error: { code: 'NOT_FOUND', message: 'no' } });
    res.type(f.mime).send(f.bytes);
  });
  app.get('/v1/files/:id/permissions', (req, res) => {
    const f = file(req.params.id);
    if (!f) return void res.status(404).json({ error: { code: 'NOT_FOUND', message: 'no' } });
    const p = page(req, f.permissions, state.pageSize, base);
    res.json({ ...p, value: { permissions: p.value } });
  });
  app.get('/v1/users', (req, res) => void res.json(page(req, state.users, state.pageSize, base)));
  app.get(
    '/v1/groups',
    (req, res) =>
      void res.json(
        page(
          req,
          state.groups.map(({ id, name }) => ({ id, name })),
          state.pageSize,
          base,
        ),
      ),
  );
  app.get(
    '/v1/groups/:id/members',
    (req, res) => void res.json(page(req, state.groups.find((g) => g.id === req.params.id)?.members ?? [], state.pageSize, base)),
  );
  const server = await listenOnLoopback(app);
  base = server.url;
  return { url: server.url, key, state, log, close: server.close };
}

export const html = (title: string, text: string): string => `<html><body><h1>${title}</h1><p>${text}</p></body></html>`;
export const view = (type: 'USER' | 'GROUP', id: string) => ({ type, id, action: 'VIEW' });

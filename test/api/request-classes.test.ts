import crypto from 'node:crypto';
import type http from 'node:http';
import pino from 'pino';
import request from 'supertest';
import { createApp } from '../../src/http/create-app';
import { FsBlobStore } from '../../src/blobs/fs-blob-store';
import { listenOnLoopback } from '../../src/lib/listen-on-loopback';
import { serverOptionsOf } from '../../src/lib/server-options-of';
import { createTestDatabase, type TestDatabase } from '../helpers/test-databases';

const KEY = 'request-classes-key-0123456789abcdef';

/**
 * The gateway's server builds each request and response with Express's prototypes already in
 * place (src/http/request-classes.ts), so Express's per-request `setPrototypeOf` changes nothing
 * and the objects keep fast maps. Served either way, the answers are the same.
 */
describe('request and response classes', () => {
  let database: TestDatabase;
  let app: Awaited<ReturnType<typeof createApp>>['app'];

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    ({ app } = await createApp({
      config: { publicBaseUrl: undefined },
      db: database.db,
      blobs: new FsBlobStore(`${database.env.SQLITE_PATH}.blobs`),
      logger: pino({ level: 'silent' }),
      apiKeys: [KEY],
      skipTokenSecret: crypto.randomBytes(32).toString('hex'),
    }));
  });
  afterAll(async () => {
    await database.destroy();
  });

  test('the app asks for classes whose prototypes are the ones Express gives requests and responses', () => {
    const options = serverOptionsOf(app);
    expect(options.IncomingMessage?.prototype).toBe(app.request);
    expect(options.ServerResponse?.prototype).toBe(app.response);
    // Express's own methods and getters, and the app, are on them.
    expect(typeof app.request.get).toBe('function');
    expect(Object.getOwnPropertyDescriptor(app.request, 'hostname')?.get).toBeDefined();
    expect(typeof app.response.json).toBe('function');
    expect((app.request as unknown as { app: unknown }).app).toBe(app);
  });

  test('a loopback server builds every request and response with those prototypes before Express sees them', async () => {
    const seen: boolean[] = [];
    const server = await listenOnLoopback(app, (s: http.Server) => {
      s.prependListener('request', (req, res) => seen.push(Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response));
    });
    try {
      const res = await request(server.url).get('/v1/files/permissions/metadata').set('Authorization', `Bearer ${KEY}`);
      expect(res.status).toBe(200);
      expect(res.body.model).toBe('resource_permission');
      expect(res.headers['x-request-id']).toBeDefined();
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(seen).toEqual([true]);
    } finally {
      await server.close();
    }
  });

  test('a server made without them (supertest on the app) answers the same', async () => {
    const direct = await request(app).get('/v1/files/permissions/metadata?x=1').set('Authorization', `Bearer ${KEY}`);
    expect(direct.status).toBe(200);
    expect(direct.body.model).toBe('resource_permission');
    const refused = await request(app).get('/v1/files/permissions/metadata');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('AUTHENTICATION_FAILED');
  });
});

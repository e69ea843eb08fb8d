import fs from 'node:fs';
import path from 'node:path';
import { operationHandlers } from '../../src/http/operation-handlers';
import { ContractValidator } from '../helpers/contract-validator';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { loadContract } from '../../src/http/load-contract';
import { errorCodes } from '../../src/errors/error-codes';

describe('the contract drives the server', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway('sqlite');
  });
  afterAll(() => gw.close());

  it('has a handler for every operation and no handler without an operation', async () => {
    const fromContract = (await new ContractValidator().operationIds()).sort();
    const handled = Object.keys(operationHandlers({ config: {} } as never)).sort();
    expect(handled).toEqual(fromContract);
  });

  it('declares the eight platform endpoints under /v1, all GET and all behind bearer auth', () => {
    const paths = loadContract().paths as Record<string, Record<string, { security?: unknown[] }>>;
    const v1 = Object.keys(paths)
      .filter((p) => p.startsWith('/v1/'))
      .sort();
    expect(v1).toEqual([
      '/v1/files',
      '/v1/files/permissions/metadata',
      '/v1/files/{id}',
      '/v1/files/{id}/download',
      '/v1/files/{id}/permissions',
      '/v1/groups',
      '/v1/groups/{groupId}/members',
      '/v1/users',
    ]);
    for (const p of v1) {
      expect(Object.keys(paths[p] ?? {})).toEqual(['get']);
      expect(paths[p]?.get?.security).toBeUndefined(); // inherits the global bearerAuth requirement
    }
  });

  it('lists in the Error schema exactly the codes of the error registry', () => {
    const schemas = loadContract().components?.schemas as Record<string, { properties: { error: { properties: { code: { enum: string[] } } } } }>;
    expect([...(schemas.Error?.properties.error.properties.code.enum ?? [])].sort()).toEqual(Object.keys(errorCodes).sort());
  });

  it('serves the contract at /openapi.json without authentication', async () => {
    // /openapi.json is outside the contract itself, so it is fetched without the contract check.
    const raw = await fetch(`${gw.url}/openapi.json`);
    expect(raw.status).toBe(200);
    const doc = (await raw.json()) as { openapi: string; paths: object };
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toContain('/v1/files');
  });

  it('keeps the contract file where the server loads it from', () => {
    expect(fs.existsSync(path.join(__dirname, '../../openapi/content-gateway.yaml'))).toBe(true);
  });
});

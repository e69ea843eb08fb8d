import type { Document } from 'openapi-backend';
import { createApiBackend } from '../../src/http/create-api-backend';
import { loadContract, loadGatewayContract } from '../../src/http/load-contract';
import { initOpenApiBackend } from '../../src/lib/init-openapi-backend';
import { htmlFile } from '../helpers/staging-fixtures';
import { AUTH, startTestGateway, type TestGateway } from '../helpers/test-gateway';

/** The contract is loaded once per process and shared by every app; a broken document is not kept. */
describe('loading an OpenAPI document', () => {
  it('loads the contract once per process: every caller gets the same backend', async () => {
    const [a, b] = await Promise.all([createApiBackend(loadGatewayContract()), createApiBackend(loadGatewayContract())]);
    expect(a).toBe(b);
    expect(await createApiBackend(loadGatewayContract())).toBe(a);
  });

  it('keeps documents (and options) apart', async () => {
    const contract = loadContract();
    const other = { ...loadContract(), info: { title: 'fork', version: '9' } } as Document;
    expect(await initOpenApiBackend(other)).not.toBe(await initOpenApiBackend(contract));
    expect(await initOpenApiBackend(loadContract(), { validate: true })).not.toBe(await initOpenApiBackend(loadContract(), { validate: false }));
  });

  it('does not keep a failed load: the same broken document fails again', async () => {
    const broken = { openapi: '3.0.3', info: { title: 'x', version: '1' }, paths: { '/a': { get: { responses: 'nope' } } } } as unknown as Document;
    await expect(initOpenApiBackend(broken)).rejects.toThrow();
    await expect(initOpenApiBackend(broken)).rejects.toThrow();
  });
});

describe('two gateways in one process, sharing the contract', () => {
  const gateways: TestGateway[] = [];
  afterAll(async () => {
    for (const g of gateways) await g.close();
  });

  it('each answers from its own staging database', async () => {
    for (const title of ['first', 'second']) {
      const gw = await startTestGateway('sqlite');
      await gw.writer.putFiles([{ file: htmlFile(`fs:${title}.html`), permissions: [] }]);
      gateways.push(gw);
    }
    for (const [i, title] of ['first', 'second'].entries()) {
      const res = await (gateways[i] as TestGateway).get('/v1/files', AUTH);
      expect(res.status).toBe(200);
      expect(res.body.value.map((f: { id: string }) => f.id)).toEqual([`fs:${title}.html`]);
    }
  });
});

import fc from 'fast-check';
import { ConfigError, loadConfig } from '../../src/config/load-config';
import { htmlFile } from '../helpers/staging-fixtures';
import { AUTH, startTestGateway, type GatewayOptions, type TestGateway } from '../helpers/test-gateway';

interface Page {
  '@odata.context'?: string;
  '@odata.nextLink'?: string;
}

async function gatewayWithTwoFiles(options: GatewayOptions): Promise<TestGateway> {
  const gw = await startTestGateway('sqlite', options);
  await gw.writer.putFiles([htmlFile('test:a'), htmlFile('test:b')].map((file) => ({ file, permissions: [] })));
  return gw;
}

const BAD_HOST = { error: { code: 'INPUT_VALIDATION_FAILED', message: expect.stringMatching(/host/i) as unknown as string } };

describe('Host header poisoning', () => {
  describe('with ALLOWED_HOSTS', () => {
    let gw: TestGateway;
    beforeAll(async () => {
      gw = await gatewayWithTwoFiles({ allowedHosts: ['gateway.example.com', 'localhost', '127.0.0.1'], trustProxy: 'loopback' });
    });
    afterAll(() => gw.close());

    it('refuses a request for another host with 400 in the envelope, before any link is built', async () => {
      for (const host of ['evil.example', 'gateway.example.com.evil.example', 'evil.example:443', 'gateway-example.com']) {
        const res = await gw.get('/v1/files?$top=1', { ...AUTH, Host: host });
        expect({ host, status: res.status, body: res.body }).toEqual({ host, status: 400, body: BAD_HOST });
        expect(JSON.stringify(res.body)).not.toContain('evil.example/');
      }
    });

    it('refuses another host named by a trusted proxy (X-Forwarded-Host)', async () => {
      const res = await gw.get('/v1/files?$top=1', { ...AUTH, Host: 'gateway.example.com', 'X-Forwarded-Host': 'evil.example' });
      expect(res.status).toBe(400);
    });

    it('serves a listed host, in any case and on any port, with links to it', async () => {
      for (const host of ['gateway.example.com', 'GATEWAY.Example.com:8443', 'gateway.example.com.']) {
        const res = await gw.get('/v1/files?$top=1', { ...AUTH, Host: host });
        expect({ host, status: res.status }).toEqual({ host, status: 200 });
        expect(new URL((res.body as Page)['@odata.nextLink'] as string).hostname.replace(/\.$/, '')).toBe('gateway.example.com');
      }
    });

    it('refuses every host not on the list, whatever it is', async () => {
      const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
      const host = fc
        .tuple(fc.array(label, { minLength: 1, maxLength: 4 }), fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }))
        .map(([labels, port]) => `${labels.join('.')}${port ? `:${port}` : ''}`);
      await fc.assert(
        fc.asyncProperty(
          host.filter((h) => !['gateway.example.com', 'localhost', '127.0.0.1'].includes(h.replace(/:\d+$/, ''))),
          async (h) => {
            const res = await gw.get('/v1/files?$top=1', { ...AUTH, Host: h });
            expect({ h, status: res.status }).toEqual({ h, status: 400 });
          },
        ),
        { numRuns: 60 },
      );
    });

    it('still answers health checks, which name no host of their own (a load balancer probes by address)', async () => {
      expect((await gw.get('/healthz', { Host: '10.1.2.3:3000' })).status).toBe(200);
      expect((await gw.get('/readyz', { Host: '10.1.2.3:3000' })).status).toBe(200);
    });
  });

  it("with ALLOWED_HOSTS and PUBLIC_BASE_URL, also answers to the public URL's host (what a proxy in front forwards)", async () => {
    const gw = await gatewayWithTwoFiles({ allowedHosts: ['localhost', '127.0.0.1'], publicBaseUrl: 'https://Gateway.Example.com/' });
    try {
      expect((await gw.get('/v1/files?$top=1', { ...AUTH, Host: 'gateway.example.com' })).status).toBe(200);
      expect((await gw.get('/v1/files?$top=1', { ...AUTH, Host: 'localhost:3000' })).status).toBe(200);
      expect((await gw.get('/v1/files?$top=1', { ...AUTH, Host: 'evil.example' })).status).toBe(400);
    } finally {
      await gw.close();
    }
  });

  it('with PUBLIC_BASE_URL, builds links from it whatever the Host header says', async () => {
    const gw = await gatewayWithTwoFiles({ publicBaseUrl: 'https://gateway.example.com' });
    try {
      const res = await gw.get('/v1/files?$top=1', { ...AUTH, Host: 'evil.example' });
      expect(res.status).toBe(200);
      expect((res.body as Page)['@odata.nextLink']).toMatch(/^https:\/\/gateway\.example\.com\/v1\/files\?/);
    } finally {
      await gw.close();
    }
  });

  it('with neither (development), keeps following the request host, as before', async () => {
    const gw = await gatewayWithTwoFiles({});
    try {
      const res = await gw.get('/v1/files?$top=1', { ...AUTH, Host: 'dev-box.local:3000' });
      expect((res.body as Page)['@odata.nextLink']).toMatch(/^http:\/\/dev-box\.local:3000\/v1\/files\?/);
    } finally {
      await gw.close();
    }
  });
});

describe('ALLOWED_HOSTS', () => {
  it('takes comma-separated host names and addresses, and refuses ports, schemes and paths', () => {
    expect(loadConfig({ ALLOWED_HOSTS: 'gateway.example.com, 10.0.0.5,[::1],localhost,gw.example.' }).allowedHosts).toEqual([
      'gateway.example.com',
      '10.0.0.5',
      '[::1]',
      'localhost',
      'gw.example.',
    ]);
    expect(loadConfig({}).allowedHosts).toEqual([]);
    for (const bad of ['gateway.example.com:443', 'https://gateway.example.com', 'gateway.example.com/v1', '*.example.com', 'a..b', '-a.example']) {
      expect(() => loadConfig({ ALLOWED_HOSTS: bad })).toThrow(ConfigError);
    }
  });
});

import { ConfigError, loadConfig } from '../../src/config/load-config';

/** The console is off by default, and on only with its own admin key: never the crawl key, long enough in production. */
describe('CONSOLE_ENABLED and CONSOLE_ADMIN_KEY', () => {
  const problems = (env: Record<string, string>): string[] => {
    try {
      loadConfig(env);
      return [];
    } catch (error) {
      return (error as ConfigError).problems;
    }
  };
  const LONG = 'a'.repeat(32);

  it('is off by default', () => {
    expect(loadConfig({}).consoleEnabled).toBe(false);
  });

  it('needs an admin key when on, never one of the crawl keys, and 32 characters in production; the key is never shown', () => {
    expect(problems({ CONSOLE_ENABLED: 'true' })).toEqual(['CONSOLE_ADMIN_KEY or CONSOLE_ADMIN_CLIENTS: one is required when CONSOLE_ENABLED=true']);
    expect(problems({ CONSOLE_ENABLED: 'true', CONSOLE_ADMIN_KEY: 'shared-key', GATEWAY_API_KEY: 'other,shared-key' })).toEqual([
      expect.stringMatching(/^CONSOLE_ADMIN_KEY: must differ from every GATEWAY_API_KEY key/),
    ]);
    const production = { NODE_ENV: 'production', GATEWAY_API_KEY: 'b'.repeat(32), PUBLIC_BASE_URL: 'https://gw.example.com', CONSOLE_ENABLED: 'true' };
    const short = problems({ ...production, CONSOLE_ADMIN_KEY: 'short-admin-key' });
    expect(short).toEqual([expect.stringMatching(/^CONSOLE_ADMIN_KEY: must be at least 32 characters when NODE_ENV=production/)]);
    expect(short.join()).not.toContain('short-admin-key');
    expect(problems({ ...production, CONSOLE_ADMIN_KEY: LONG })).toEqual([]);
    expect(problems({ CONSOLE_ENABLED: 'true', CONSOLE_ADMIN_KEY: 'dev' })).toEqual([]);
  });

  it('takes admin OAuth clients instead of (or beside) the key, each one of OAUTH_CLIENTS', () => {
    const oauth = { OAUTH_CLIENTS: 'ops:scrypt$x$y,platform:scrypt$x$z', OAUTH_SIGNING_KEY: 'k'.repeat(32) };
    expect(problems({ ...oauth, CONSOLE_ENABLED: 'true', CONSOLE_ADMIN_CLIENTS: 'ops' })).toEqual([]);
    expect(loadConfig({ ...oauth, CONSOLE_ENABLED: 'true', CONSOLE_ADMIN_CLIENTS: 'ops' }).consoleAdminClients).toEqual(['ops']);
    expect(problems({ ...oauth, CONSOLE_ENABLED: 'true', CONSOLE_ADMIN_CLIENTS: 'ops,nobody,scrypt$x$y' })).toEqual([
      "CONSOLE_ADMIN_CLIENTS: 'nobody', 'scrypt$x$y' not among OAUTH_CLIENTS's client ids",
    ]);
    expect(problems({ CONSOLE_ENABLED: 'true', CONSOLE_ADMIN_CLIENTS: 'ops' })).toEqual(["CONSOLE_ADMIN_CLIENTS: 'ops' not among OAUTH_CLIENTS's client ids"]);
  });
});

import { settings } from '../../src/config/config-schema';
import { ConfigError, loadConfig } from '../../src/config/load-config';
import { APP_DEFAULTS } from '../../src/http/create-app';
import { MAX_SKIPTOKEN_LENGTH } from '../../src/odata/skip-token';
import { MAX_ID_LENGTH } from '../../src/wire/global-id';

describe('loadConfig', () => {
  it('gives every setting its default, with PORT 3000 and the embedded SQLite database', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      sqlitePath: './data/gateway.sqlite',
      apiKeys: [],
      pageSizeDefault: 100,
      pageSizeMax: 1000,
      includeHtmlBodyInList: false,
      demoContent: 'auto',
      blobStore: 'directory',
    });
    expect(config.databaseUrl).toBeUndefined();
  });

  it("gives the app factory the schema's own defaults, defined once", () => {
    const config = loadConfig({});
    for (const [key, value] of Object.entries(APP_DEFAULTS)) expect([key, value]).toEqual([key, config[key as keyof typeof config]]);
    expect(APP_DEFAULTS.pageSizeMax).toBe(1000);
  });

  it('refuses a public URL carrying a user name or password, without showing them', () => {
    for (const env of ['PUBLIC_BASE_URL', 'WEBHOOKS_PUBLIC_URL']) {
      const given = { [env]: 'https://ops:hunter2-secret@gateway.example.com' };
      expect(() => loadConfig(given)).toThrow(ConfigError);
      expect(() => loadConfig(given)).toThrow(new RegExp(`${env}=.*must not carry a user name or password`));
      expect(() => loadConfig(given)).not.toThrow(/hunter2|ops:/);
    }
    expect(loadConfig({ WEBHOOKS_PUBLIC_URL: 'https://gateway.example.com' }).webhooksPublicUrl).toBe('https://gateway.example.com');
    expect(() => loadConfig({ WEBHOOKS_PUBLIC_URL: 'not a url' })).toThrow(/absolute URL/);
  });

  it('keeps blobs in a directory, in the database or in an S3 bucket, and names the choices for anything else', () => {
    expect(loadConfig({ BLOB_STORE: 'database' }).blobStore).toBe('database');
    expect(() => loadConfig({ BLOB_STORE: 'gcs' })).toThrow(/BLOB_STORE="gcs": expected directory, database or s3/);
  });

  it('with BLOB_STORE=s3, needs a bucket, and both halves of a key pair or neither (the secret never shown)', () => {
    const s3 = { BLOB_STORE: 's3', S3_BUCKET: 'acme-blobs', S3_ENDPOINT: 'http://minio:9000', S3_FORCE_PATH_STYLE: 'true' };
    expect(loadConfig(s3)).toMatchObject({ blobStore: 's3', s3Bucket: 'acme-blobs', s3Prefix: 'blobs', s3Region: 'us-east-1', s3ForcePathStyle: true });
    expect(loadConfig(s3).s3AccessKeyId).toBeUndefined();
    expect(() => loadConfig({ BLOB_STORE: 's3' })).toThrow(/S3_BUCKET: required when BLOB_STORE=s3/);
    expect(() => loadConfig({ ...s3, S3_BUCKET: 'Not_A_Bucket' })).toThrow(/S3_BUCKET="Not_A_Bucket": expected an S3 bucket name/);
    const secret = 'half-of-a-key-pair-secret';
    let error: unknown;
    try {
      loadConfig({ ...s3, S3_SECRET_ACCESS_KEY: secret });
    } catch (e) {
      error = e;
    }
    expect((error as ConfigError).problems).toEqual(["S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY: set both, or neither (the AWS SDK's credential chain)"]);
    expect(String((error as Error).message)).not.toContain(secret);
  });

  it("keeps MAX_URL_LENGTH at least as long as the gateway's own longest link", () => {
    // `/v1/files/<id>/permissions?$top=<any safe integer>&$skiptoken=<token>`: the longest path, query and token it sends.
    const longest =
      '/v1/files/'.length +
      MAX_ID_LENGTH +
      '/permissions'.length +
      '?$top='.length +
      String(Number.MAX_SAFE_INTEGER).length +
      '&$skiptoken='.length +
      MAX_SKIPTOKEN_LENGTH;
    expect(loadConfig({ MAX_URL_LENGTH: '6144' }).maxUrlLength).toBeGreaterThanOrEqual(longest);
    expect(() => loadConfig({ MAX_URL_LENGTH: '6143' })).toThrow(/MAX_URL_LENGTH/);
  });

  it('reads several comma-separated API keys for rotation', () => {
    expect(loadConfig({ GATEWAY_API_KEY: 'new-key, old-key ,' }).apiKeys).toEqual(['new-key', 'old-key']);
  });

  it('reports every bad value at once, naming the variable, and hides secrets', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', PAGE_SIZE_MAX: '0', DATABASE_URL: 'mysql://secret-password@db', INCLUDE_HTML_BODY_IN_LIST: 'maybe' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { problems, message } = error as ConfigError;
    expect(problems.map((p) => p.split('=')[0])).toEqual(['PORT', 'DATABASE_URL', 'PAGE_SIZE_MAX', 'INCLUDE_HTML_BODY_IN_LIST']);
    expect(message).not.toContain('secret-password');
    expect(message).toMatch(/INCLUDE_HTML_BODY_IN_LIST="maybe": expected true or false/);
  });

  it('refuses to start in production without an API key, and a default page larger than the ceiling', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/GATEWAY_API_KEY: required when NODE_ENV=production/);
    expect(() => loadConfig({ PAGE_SIZE_DEFAULT: '500', PAGE_SIZE_MAX: '100' })).toThrow(/must not exceed PAGE_SIZE_MAX/);
  });

  it('in production, refuses API keys under 32 characters, naming them by position and never by value', () => {
    const long = 'k'.repeat(32);
    expect(loadConfig({ NODE_ENV: 'production', GATEWAY_API_KEY: long }).apiKeys).toEqual([long]);
    expect(loadConfig({ GATEWAY_API_KEY: 'short-dev-key' }).apiKeys).toEqual(['short-dev-key']);
    const refusal = (keys: string): string => {
      try {
        loadConfig({ NODE_ENV: 'production', GATEWAY_API_KEY: keys });
      } catch (error) {
        return (error as ConfigError).message;
      }
      return 'accepted';
    };
    expect(refusal('tiny-key-1')).toMatch(/GATEWAY_API_KEY: every key must be at least 32 characters when NODE_ENV=production; the key is shorter/);
    const two = refusal(`${long},tiny-key-2,${'x'.repeat(31)}`);
    expect(two).toMatch(/keys 2, 3 of 3 \(in the order given\) are shorter/);
    for (const message of [refusal('tiny-key-1'), two]) expect(message).not.toMatch(/tiny-key|xxxx/);
  });

  it('documents every setting with its environment variable and a description', () => {
    const envs = Object.values(settings).map((s) => s.env);
    expect(new Set(envs).size).toBe(envs.length);
    for (const s of Object.values(settings)) expect(s.description.length).toBeGreaterThan(10);
  });
});

import { settings, type Config } from './config-schema';
import { MIN_SECRET_LENGTH } from './min-secret-length';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads every setting from `env` (pure: the caller passes `process.env`). Reports all problems at
 * once, each naming the variable, so a bad deployment fails at start-up with one clear message.
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(settings)) {
    const raw = env[spec.env];
    const value = raw === undefined || raw === '' ? spec.default : raw;
    const parsed = spec.schema.safeParse(value);
    if (parsed.success) {
      out[key] = parsed.data;
    } else {
      const shown = spec.secret ? '(hidden)' : JSON.stringify(withoutUserInfo(value));
      const why = parsed.error.issues.map((i) => i.message).join('; ');
      problems.push(`${spec.env}=${shown}: ${why}`);
    }
  }
  const config = out as Config;
  if (problems.length === 0 && config.pageSizeDefault > config.pageSizeMax) {
    problems.push(`PAGE_SIZE_DEFAULT (${config.pageSizeDefault}) must not exceed PAGE_SIZE_MAX (${config.pageSizeMax})`);
  }
  if (problems.length === 0 && config.nodeEnv === 'production' && config.apiKeys.length === 0) {
    problems.push('GATEWAY_API_KEY: required when NODE_ENV=production');
  }
  if (problems.length === 0 && config.nodeEnv === 'production') {
    // By position, never by value: a key must not reach the log, even a weak one.
    const short = config.apiKeys.flatMap((key, i) => (key.length < MIN_SECRET_LENGTH ? [i + 1] : []));
    if (short.length > 0) {
      const which =
        config.apiKeys.length === 1
          ? 'the key is shorter'
          : `key${short.length > 1 ? 's' : ''} ${short.join(', ')} of ${config.apiKeys.length} (in the order given) ${short.length > 1 ? 'are' : 'is'} shorter`;
      problems.push(
        `GATEWAY_API_KEY: every key must be at least ${MIN_SECRET_LENGTH} characters when NODE_ENV=production; ${which} (make one with \`openssl rand -hex 32\`)`,
      );
    }
  }
  if (problems.length === 0 && Boolean(config.tlsCertFile) !== Boolean(config.tlsKeyFile)) {
    problems.push('TLS_CERT_FILE and TLS_KEY_FILE: set both (HTTPS) or neither (HTTP)');
  }
  if (problems.length === 0 && config.oauthClients.length > 0 && !config.oauthSigningKey) {
    problems.push('OAUTH_SIGNING_KEY: required when OAUTH_CLIENTS is set');
  }
  problems.push(...s3Problems(config, problems.length));
  problems.push(...consoleProblems(config, problems.length));
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** What `BLOB_STORE=s3` needs besides its own settings (none when other problems came first). */
function s3Problems(config: Config, earlier: number): string[] {
  if (earlier > 0) return [];
  const problems: string[] = [];
  if (config.blobStore === 's3' && !config.s3Bucket) problems.push('S3_BUCKET: required when BLOB_STORE=s3');
  if (Boolean(config.s3AccessKeyId) !== Boolean(config.s3SecretAccessKey)) {
    problems.push("S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY: set both, or neither (the AWS SDK's credential chain)");
  }
  return problems;
}

/** A refused value as shown in the error: a URL's user name and password replaced, wherever they stand. */
function withoutUserInfo(value: unknown): unknown {
  return typeof value === 'string' ? value.replace(/(\/\/)[^/@\s]*@/g, '$1(hidden)@') : value;
}

/** The console needs its own credentials: an admin key (long enough in production, never the platform's crawl key), admin OAuth clients, or both. */
function consoleProblems(config: Config, earlier: number): string[] {
  if (earlier > 0 || !config.consoleEnabled) return [];
  const key = config.consoleAdminKey;
  if (!key && config.consoleAdminClients.length === 0) return ['CONSOLE_ADMIN_KEY or CONSOLE_ADMIN_CLIENTS: one is required when CONSOLE_ENABLED=true'];
  return [...(key ? adminKeyProblems(config, key) : []), ...adminClientProblems(config)];
}

function adminKeyProblems(config: Config, key: string): string[] {
  if (config.apiKeys.includes(key)) return ["CONSOLE_ADMIN_KEY: must differ from every GATEWAY_API_KEY key (the platform's crawl key never opens the console)"];
  if (config.nodeEnv === 'production' && key.length < MIN_SECRET_LENGTH)
    return [`CONSOLE_ADMIN_KEY: must be at least ${MIN_SECRET_LENGTH} characters when NODE_ENV=production (make one with \`openssl rand -hex 32\`)`];
  return [];
}

/** Each admin client must be an OAuth client (`OAUTH_CLIENTS` entries are `client_id:secret_hash`). */
function adminClientProblems(config: Config): string[] {
  const ids = new Set(config.oauthClients.map((entry) => entry.slice(0, Math.max(0, entry.indexOf(':')))));
  const unknown = config.consoleAdminClients.filter((id) => !ids.has(id));
  return unknown.length > 0 ? [`CONSOLE_ADMIN_CLIENTS: ${unknown.map((id) => `'${id}'`).join(', ')} not among OAUTH_CLIENTS's client ids`] : [];
}

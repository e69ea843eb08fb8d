/**
 * Query parameter names whose values are credentials, normalised (`normalizeName`): compared
 * after percent-decoding, lower-casing, dropping a `[...]` suffix and everything but letters and
 * digits, so `access_token`, `ACCESS-TOKEN`, `access%5Ftoken` and `accessToken[]` are one name.
 */
export const CREDENTIAL_NAMES: ReadonlySet<string> = new Set([
  'accesstoken',
  'token',
  'apikey',
  'key',
  'secret',
  'clientsecret',
  'password',
  'passwd',
  'pwd',
  'pass',
  'auth',
  'authorization',
  'bearer',
  'sig',
  'signature',
  'code',
  'refreshtoken',
  'idtoken',
  'xapikey',
  'jwt',
  'session',
  'sessionid',
  'sid',
  'assertion',
  'clientassertion',
  'privatekey',
  'otp',
]);

/** Parts that make any (non-OData) parameter name a credential name: `my_access_token`, `X-Amz-Security-Token`, `oauth_signature`. */
const CREDENTIAL_PARTS = ['token', 'secret', 'passw', 'apikey', 'authoriz', 'oauth', 'signature', 'credential', 'privatekey', 'sessionid'];

/** An issued access token (a JWT: base64url JSON header `{"...`, payload, signature) anywhere in a URL. */
const JWT = /eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;

const REDACTED = '[redacted]';
/** Rounds of percent-decoding tried: a secret escaped twice (`%2541`) is still found. */
const DECODE_ROUNDS = 4;

/** Runs of `%XX` as the UTF-8 bytes they spell; anything that is not an escape stays as written. */
function percentDecode(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'));
}

/** The text as written and as any number of decodings (with `+` read as a space or not) would read it. */
function readings(text: string): string[] {
  if (!text.includes('%') && !text.includes('+')) return [text];
  const seen = new Set([text]);
  let frontier = [text];
  for (let round = 0; round < DECODE_ROUNDS && frontier.length > 0; round += 1) {
    const next: string[] = [];
    for (const t of frontier) {
      for (const decoded of [percentDecode(t), percentDecode(t.replace(/\+/g, ' '))]) {
        if (!seen.has(decoded)) {
          seen.add(decoded);
          next.push(decoded);
        }
      }
    }
    frontier = next;
  }
  return [...seen];
}

function normalizeName(name: string): string {
  return name
    .toLowerCase()
    .replace(/\[.*$/, '')
    .replace(/[^a-z0-9]/g, '');
}

/** Whether a query parameter name, in any of its readings, names a credential. OData options (`$skiptoken`) do not. */
export function isCredentialName(rawName: string): boolean {
  return readings(rawName).some((reading) => {
    const trimmed = reading.trim();
    const name = normalizeName(trimmed);
    if (CREDENTIAL_NAMES.has(name)) return true;
    return !trimmed.startsWith('$') && (CREDENTIAL_PARTS.some((part) => name.includes(part)) || name.endsWith('auth'));
  });
}

/**
 * Keeps credentials out of what the gateway logs. Built with every secret the process holds in
 * plain text (API keys, the token signing key, the metrics token, the `$skiptoken` secret, the
 * `OAUTH_CLIENTS` entries); OAuth client secrets themselves are held only as scrypt hashes, so they
 * are kept out by name (`client_secret=`) and because headers and bodies are never logged.
 */
export class SecretRedactor {
  private readonly secrets: readonly string[];

  constructor(secrets: ReadonlyArray<string | undefined>) {
    this.secrets = [...new Set(secrets.filter((s): s is string => typeof s === 'string' && s.length > 0))];
  }

  /** Whether `text`, as written or decoded any number of times, contains a configured secret. */
  holdsSecret(text: string): boolean {
    if (this.secrets.length === 0) return false;
    return readings(text).some((reading) => this.secrets.some((secret) => reading.includes(secret)));
  }

  /**
   * A URL fit for a log line: values of credential parameters (`isCredentialName`, by decoded,
   * case-insensitive name) and JWTs are replaced by `[redacted]`, and a URL that still holds a
   * configured secret anywhere (path, parameter name or value, in any encoding) is replaced whole.
   * Paths, ids and OData options are kept as sent: they are what an operator looks for.
   */
  redactUrl(url: string): string {
    const q = url.indexOf('?');
    const byName =
      q < 0
        ? url
        : `${url.slice(0, q + 1)}${url.slice(q + 1).replace(/([^&;=]*)=([^&;]*)/g, (pair, name: string) => (isCredentialName(name) ? `${name}=${REDACTED}` : pair))}`;
    return this.holdsSecret(byName) ? REDACTED : byName.replace(JWT, REDACTED);
  }
}

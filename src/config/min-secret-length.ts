/**
 * The fewest characters an API key or an OAuth client secret may have in production: 32 random
 * characters (`openssl rand -hex 32` gives 64) put guessing out of reach whatever the rate of
 * failures allowed. `loadConfig` holds API keys to it at start-up; client secrets are stored only
 * as hashes, so `hash-secret` refuses to hash a shorter one and, in production, the token endpoint
 * refuses a shorter presented secret.
 */
export const MIN_SECRET_LENGTH = 32;

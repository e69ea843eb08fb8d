import { z } from 'zod';

// The value types that several settings share, read as the environment spells them.

export const port = z.coerce.number().int().min(0).max(65535);
export const positiveInt = z.coerce.number().int().min(1);
/** `auto` (the gateway decides from the machine) or a positive count. */
export const autoOrCount = () =>
  z
    .string()
    .regex(/^(auto|[1-9]\d*)$/, { message: 'expected auto or a positive integer' })
    .transform((v): 'auto' | number => (v === 'auto' ? 'auto' : Number(v)));
export const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'expected true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');
/** A comma-separated list in the environment, an array in the config. */
export const list = z
  .string()
  .optional()
  .transform((s) =>
    (s ?? '')
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v.length > 0),
  );
export const url = z.url({ message: 'expected an absolute URL such as https://gateway.example.com' });

/**
 * A URL the gateway shows or sends to others (links it serves, the target it registers for
 * webhooks): never with a user name or password in it, which would reach logs and other services.
 */
export const publicUrl = url.refine(
  (value) => {
    // Only a value `url` took reaches the check; anything else parses as no user info.
    const parsed = URL.canParse(value) ? new URL(value) : undefined;
    return !parsed || (parsed.username === '' && parsed.password === '');
  },
  { message: 'must not carry a user name or password (they would reach logs, links and other services)' },
);

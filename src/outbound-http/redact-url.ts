/**
 * A URL safe to put in logs and error messages: scheme, host and path only. The whole query is
 * dropped (remote APIs accept tokens, signatures and offsets there), as are the fragment and any
 * `user:password@`. Unparseable input is cut at the first `?` or `#`.
 */
export function redactUrl(url: string | URL): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin === 'null' ? `${parsed.protocol}` : parsed.origin}${parsed.pathname}`;
  } catch {
    return String(url).split(/[?#]/, 1)[0] ?? '';
  }
}

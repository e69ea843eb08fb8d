import type { ProbeResult } from '../crawl/crawl-record';
import { fail, warn, type Finding } from '../finding';

/**
 * A probe's verdict, or undefined when the answer is a good one. A 5xx, a 4xx without the error
 * envelope, no answer at all, or a body that looks like a leaked system file always fail.
 */
export function judgeProbe(p: ProbeResult): Finding | undefined {
  const e = { url: p.url, field: 'status', value: p.code ? `${p.status} ${p.code}` : String(p.status) };
  if (p.status === 0) return fail(p.check, `${p.description}: no answer (${p.error ?? 'connection failed'}).`, e);
  if (p.leaked) return fail(p.check, `${p.description}: the answer looks like a system file — the id reached the file system.`, { ...e, field: 'body' });
  if (p.status >= 500) return fail(p.check, `${p.description}: answered ${p.status}; bad input must get a 4xx, never a 5xx.`, e);
  if (p.status >= 400 && !p.envelope)
    return fail(p.check, `${p.description}: the ${p.status} answer is not the error envelope {"error": {"code", "message"}}.`, e);
  if (p.chain?.loop)
    return fail(
      p.check,
      `${p.description}: answered 200, and following its @odata.nextLink never ends — ${p.chain.loop} links back to a page already read (the platform would crawl forever).`,
      { url: p.chain.loop, field: '@odata.nextLink', value: p.chain.loop },
    );
  if (p.chain && p.chain.missing > 0) {
    return fail(
      p.check,
      `${p.description}: answered 200, but the listing it starts never lists ${p.chain.missing} of the files the crawl found (e.g. ${p.chain.firstMissing ?? '?'}); ${p.chain.listed} listed over ${p.chain.pages} page(s)${p.chain.failure ? `, stopped: ${p.chain.failure}` : ''}.`,
      { ...e, field: 'value', value: `${p.chain.listed} listed, ${p.chain.missing} missing` },
    );
  }
  const other = (message: string) => (p.otherwise === 'fail' ? fail : warn)(p.check, `${p.description}: ${message}`, e);
  switch (p.expect) {
    case '401':
      if (p.status === 401 && p.code === 'AUTHENTICATION_FAILED') return undefined;
      // A gateway that budgets failed authentication per address (ours: AUTH_FAILURE_LIMIT) refuses
      // a run's wrong keys with 429 once the budget is spent, as when conformance runs twice a
      // minute: still a refusal, and nothing served.
      if (p.status === 429 && p.code === 'RATE_LIMIT_EXCEEDED') return undefined;
      if (p.status === 401) return fail(p.check, `${p.description}: 401 with code ${p.code ?? '(none)'}; expected AUTHENTICATION_FAILED.`, e);
      return other(`expected 401 AUTHENTICATION_FAILED (or 429 RATE_LIMIT_EXCEEDED once failures are throttled), got ${p.status}.`);
    case '4xx':
      if (p.status >= 400 && p.status < 500) return undefined;
      return other(`expected a 4xx error envelope, got ${p.status}${p.items !== undefined ? ` with ${p.items} items` : ''}.`);
    case '200':
      return p.status === 200 ? undefined : other(`expected 200, got ${p.status}.`);
    case '2xx-or-4xx':
      return (p.status >= 200 && p.status < 300) || (p.status >= 400 && p.status < 500) ? undefined : other(`expected a 2xx or a 4xx, got ${p.status}.`);
  }
}

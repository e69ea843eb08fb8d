import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logging/create-logger';
import type { AccessExpectation } from './access/access-expectations';
import type { Profile } from './conformance-profile';
import { runChecks } from './checks/run-checks';
import { buildReport, type ConformanceReport } from './report/conformance-report';
import { ContractValidation } from './crawl/contract-validation';
import { crawlGateway } from './crawl/crawl-gateway';
import type { CrawlRecord, RecordedRun } from './crawl/crawl-record';
import { CrawlRecorder } from './crawl/crawl-recorder';
import { accessInputFromCrawl, EffectiveAccess } from './access/effective-access';
import { GatewayClient, type AuthForm } from './crawl/gateway-client';
import { listFilesPass, listIdsPass } from './crawl/list-passes';
import { probeGateway } from './crawl/probe-gateway';
import { RateLimitPacer } from './crawl/rate-limit-pacer';

export interface ConformanceOptions {
  /** The gateway's base URL (the `/v1` paths go below it). */
  baseUrl: string;
  key: string;
  /** The contract the gateway is held to: `platform` (what the platform requires) or `strict` (ours). */
  profile: Profile;
  /** Paste ids into paths raw, as the platform's own tools do. Default false (percent-encoded). */
  rawIds?: boolean;
  /** The Authorization form the crawl uses; the other form is probed. Default `bearer`. */
  authForm?: AuthForm;
  /** Requests in flight at most. Default 20, as the platform. */
  concurrency?: number;
  timeoutMs?: number;
  /** The odd page size crawled a second time; 0 skips it. Default 7. */
  oddTop?: number;
  /** List files, users and groups a second time. Default true. */
  secondCrawl?: boolean;
  /** Run the auth and robustness probes. Default true. */
  probes?: boolean;
  expectations?: AccessExpectation[];
  /** Another contract document for the profile's checks (a fork's own). */
  contractPath?: string;
  insecure?: boolean;
  logger?: Logger;
  /** Least time between the first and the second listing of files, so an always-"now" timestamp moves. */
  minCrawlGapMs?: number;
}

function clientFor(
  options: Omit<ConformanceOptions, 'profile'>,
  recorder: CrawlRecorder,
  pacer: RateLimitPacer,
  validation?: ContractValidation,
): GatewayClient {
  return new GatewayClient({
    baseUrl: options.baseUrl,
    key: options.key,
    authForm: options.authForm ?? 'bearer',
    concurrency: options.concurrency ?? 20,
    timeoutMs: options.timeoutMs ?? 30_000,
    recorder,
    pacer,
    ...(validation ? { validation } : {}),
    ...(options.insecure ? { insecure: true } : {}),
    ...(options.rawIds ? { rawIds: true } : {}),
  });
}

/**
 * Runs the whole conformance suite against one gateway, over HTTP only: a platform-like crawl, a
 * second crawl of the listings, an odd-`$top` crawl, the probes, then every check; returns the
 * report (it never exits or writes files — the command does).
 */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const startedAt = new Date();
  const recorder = new CrawlRecorder();
  const pacer = new RateLimitPacer();
  const validation = await ContractValidation.create(options.profile, options.contractPath);
  const client = clientFor(options, recorder, pacer, validation);
  const concurrency = options.concurrency ?? 20;
  const oddTop = options.oddTop ?? 7;
  const secondCrawl = options.secondCrawl ?? true;
  const probes = options.probes ?? true;
  try {
    const crawl = await crawlGateway(client, { concurrency, ...(options.logger ? { logger: options.logger } : {}) });
    let second: RecordedRun['second'];
    if (secondCrawl) {
      const gap = Date.parse(crawl.startedAt) + (options.minCrawlGapMs ?? 1100) - Date.now();
      if (gap > 0) await sleep(gap);
      const [files, users, groups] = await Promise.all([listFilesPass(client), listIdsPass(client, 'users'), listIdsPass(client, 'groups')]);
      second = { files, users, groups };
    }
    const oddTopPass = oddTop > 0 ? await listFilesPass(client, oddTop) : undefined;
    const binary = crawl.files.find((f) => f.download?.status === 200) ?? crawl.files.find((f) => f.download);
    const probeResults = probes
      ? await probeGateway(
          client,
          {
            ...(crawl.files[0] ? { fileId: crawl.files[0].listing.id } : {}),
            ...(binary ? { binaryId: binary.listing.id } : {}),
            ...(crawl.groups[0] ? { groupId: crawl.groups[0].id } : {}),
            // The files listing's links first: the cursor the platform follows most.
            nextLinks: [...crawl.listings, ...(oddTopPass ? [oddTopPass.listing] : [])]
              .sort((a, b) => Number(b.collection === 'files') - Number(a.collection === 'files'))
              .flatMap((l) => l.nextLinks.slice(0, 5)),
            fileIds: new Set(crawl.files.map((f) => f.listing.id)),
          },
          { key: options.key, authForm: options.authForm ?? 'bearer', profile: options.profile },
        )
      : [];
    const stats = recorder.stats(pacer);
    const run: RecordedRun = {
      crawl,
      ...(second ? { second } : {}),
      ...(oddTopPass ? { oddTop: oddTopPass } : {}),
      probes: probeResults,
      violations: recorder.violations,
      violationsDropped: recorder.violationsDropped,
      rateLimits: recorder.rateLimits,
      missingRetryAfter: recorder.missingRetryAfter,
      transportErrors: recorder.transportErrors,
      stats,
    };
    const access = new EffectiveAccess(accessInputFromCrawl(crawl));
    const findings = runChecks({ ...run, access, profile: options.profile, ...(options.expectations ? { expectations: options.expectations } : {}) });
    return buildReport({
      target: client.baseUrl,
      startedAt,
      finishedAt: new Date(),
      options: {
        profile: options.profile,
        rawIds: options.rawIds ?? false,
        concurrency,
        authForm: options.authForm ?? 'bearer',
        ...(oddTop > 0 ? { oddTop } : {}),
        secondCrawl,
        probes,
        expectations: options.expectations?.length ?? 0,
      },
      findings,
      run,
    });
  } finally {
    client.close();
  }
}

/** Just the crawl (no downloads, checks or probes): enough to answer access questions. */
export async function crawlForAccess(options: Omit<ConformanceOptions, 'profile'>): Promise<CrawlRecord> {
  const client = clientFor(options, new CrawlRecorder(), new RateLimitPacer());
  try {
    return await crawlGateway(client, { concurrency: options.concurrency ?? 20, skipDownloads: true, ...(options.logger ? { logger: options.logger } : {}) });
  } finally {
    client.close();
  }
}

import type { RetryPolicy } from 'content-gateway';
import type { Logger } from 'content-gateway/logging';
import { listenOnLoopback } from 'content-gateway/lib';
import { createWorkManagementMock } from '../mocks/work-management/create-mock-server';
import { MockClient } from './mock-client';

export interface HarnessMockOptions {
  seed: string;
  /** Tasks the generated organization has (at least 1,000 for the crawl scenario of the issue). */
  tasks: number;
  /** An already running mock (`mock work-management`); default: start one in this process. */
  mockUrl?: string;
  mockToken?: string;
  /** Turn the mock's default hostility (rate limits) on; off by default so the scenario is quick. */
  hostile?: boolean;
  /** Share (0 to 1) of the mock's API requests answered 500/503 (`mock work-management --fault-rate`). */
  faultRate?: number;
  /** Share (0 to 1) of events the mock never delivers (`mock work-management --event-loss-rate`). */
  eventLossRate?: number;
  /**
   * The retry schedule of every client of the mock (the adapter's and the harness's own); default
   * the product's. Tests shorten its waits: how long a retry waits is not what a scenario checks.
   */
  retryPolicy?: RetryPolicy;
  logger: Logger;
  print(line: string): void;
}

export interface HarnessMock {
  url: string;
  token: string;
  client: MockClient;
  /** The retry schedule asked for, if any, for the adapter's client too. */
  retryPolicy?: RetryPolicy;
  /** The organization workspace the scenario syncs. */
  workspace: string;
  close?: () => Promise<void>;
}

/** The in-process mock (with the faults and event loss asked for), or the running one named by `mockUrl`. */
export async function startHarnessMock(o: HarnessMockOptions): Promise<HarnessMock> {
  const faults = {
    ...(o.faultRate !== undefined ? { faultRate: o.faultRate } : {}),
    ...(o.eventLossRate !== undefined ? { eventLossRate: o.eventLossRate } : {}),
  };
  let mock: { url: string; token: string; close?: () => Promise<void> };
  if (o.mockUrl) {
    if (!o.mockToken) throw new Error("--mock-url needs the running mock's bearer token in WM_MOCK_TOKEN");
    mock = { url: o.mockUrl, token: o.mockToken };
    if (Object.keys(faults).length > 0)
      await new MockClient(mock.url, mock.token, { logger: o.logger, ...(o.retryPolicy ? { retryPolicy: o.retryPolicy } : {}) }).request(
        'PATCH',
        '/_admin/hostility',
        faults,
      );
  } else {
    const quiet = o.hostile ? {} : { rateLimitPerMinute: 0, maxConcurrentReads: 0, maxConcurrentWrites: 0 };
    // Faults and lost events are drawn from the scenario's seed too: each seed loses other events.
    const created = createWorkManagementMock({
      seed: o.seed,
      size: { tasks: o.tasks, personalWorkspace: false },
      hostility: { ...quiet, ...faults, seed: `harness-${o.seed}` },
    });
    const server = await listenOnLoopback(created.app);
    const extra = [o.faultRate ? `fault rate ${o.faultRate}` : '', o.eventLossRate ? `event loss rate ${o.eventLossRate}` : ''].filter(Boolean).join(', ');
    o.print(
      `work-management mock: ${created.model.indexes.tasks.size} tasks, ${created.model.indexes.users.size} users, seed ${o.seed}${extra ? `, ${extra}` : ''}, at ${server.url}`,
    );
    mock = { url: server.url, token: created.token, close: server.close };
  }
  const retry = o.retryPolicy ? { retryPolicy: o.retryPolicy } : {};
  const client = new MockClient(mock.url, mock.token, { logger: o.logger, ...retry });
  try {
    const workspaces = await client.request<{ data: Array<{ gid: string; is_organization: boolean; name: string }> }>(
      'GET',
      '/api/1.0/workspaces?opt_fields=name,is_organization',
    );
    const workspace = workspaces.data.find((w) => w.is_organization) ?? workspaces.data[0];
    if (!workspace) throw new Error('the mock has no workspace');
    return { ...mock, ...retry, client, workspace: workspace.gid };
  } catch (error) {
    await mock.close?.();
    throw error;
  }
}

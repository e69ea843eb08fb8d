/**
 * Starts the work-management mock on 127.0.0.1:0 and talks to it over real HTTP, plus a builder
 * for small hand-made organizations (the oracle and rule tests need exact, known shapes).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWorkManagementMock, type WorkManagementMock, type WorkManagementMockOptions } from '../../../src/mocks/work-management/create-mock-server';
import type { GeneratedOrganization } from '../../../src/mocks/work-management/generator';
import { WorkManagementStore } from '../../../src/mocks/work-management/model';

export interface ApiResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RunningMock {
  mock: WorkManagementMock;
  origin: string;
  base: string;
  /** Calls `/api/1.0<path>` with the service account token unless `token` is given ('' = none). */
  api<T = any>(path: string, init?: { method?: string; body?: unknown; token?: string; raw?: string }): Promise<ApiResult<T>>;
  /** Calls a private path (`/_oracle/...`, `/_admin/...`) or any absolute URL. */
  call<T = any>(pathOrUrl: string, init?: { method?: string; body?: unknown; token?: string }): Promise<ApiResult<T>>;
  close(): Promise<void>;
}

export async function startMock(options: WorkManagementMockOptions = {}): Promise<RunningMock> {
  const mock = createWorkManagementMock({ seed: 't', size: 'tiny', ...options });
  const server = http.createServer(mock.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const request = async <T>(url: string, init: { method?: string; body?: unknown; token?: string; raw?: string } = {}): Promise<ApiResult<T>> => {
    const token = init.token ?? mock.token;
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (init.raw !== undefined) body = init.raw;
    else if (init.body !== undefined) body = JSON.stringify(init.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(url, { method: init.method ?? (body !== undefined ? 'POST' : 'GET'), headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };
  return {
    mock,
    origin,
    base: `${origin}/api/1.0`,
    api: (path, init) => request(`${origin}/api/1.0${path}`, init),
    call: (pathOrUrl, init) => request(pathOrUrl.startsWith('http') ? pathOrUrl : `${origin}${pathOrUrl}`, init),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A manual clock for tests that move time. */
export function manualClock(start = Date.UTC(2025, 6, 1)): { now: () => number; advance(ms: number): void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

/**
 * A hand-built organization: an empty store with an organization workspace and a service
 * account; `build` adds exactly what a test needs.
 */
export function handBuiltOrg<T>(
  build: (s: WorkManagementStore, org: string) => T,
  now: () => number = () => Date.UTC(2025, 6, 1),
): { organization: GeneratedOrganization; built: T } {
  const store = new WorkManagementStore({ seed: 'hand', now });
  const org = store.people.addWorkspace({ name: 'Hand Org', isOrganization: true, emailDomains: ['hand.example'] });
  const sa = store.people.addUser({ name: 'Service Account', email: 'sa@hand.example', isServiceAccount: true });
  const built = build(store, org.gid);
  return {
    organization: { store, shape: {} as GeneratedOrganization['shape'], organization: org.gid, personalWorkspace: null, serviceAccount: sa.gid },
    built,
  };
}

/** Adds an active (or inactive / guest) member of a workspace. */
export function member(s: WorkManagementStore, workspace: string, name: string, opts: { isGuest?: boolean; isActive?: boolean } = {}): string {
  const user = s.people.addUser({ name, email: `${name.toLowerCase().replace(/\s+/g, '.')}@hand.example` });
  s.people.addWorkspaceMembership({ user: user.gid, workspace, isGuest: opts.isGuest ?? false, isActive: opts.isActive ?? true });
  return user.gid;
}

/** Follows next_page through a whole listing. */
export async function walk<T = any>(m: RunningMock, path: string, limit = 100): Promise<T[]> {
  const out: T[] = [];
  let next: string | null = `${path}${path.includes('?') ? '&' : '?'}limit=${limit}`;
  let guard = 0;
  while (next && guard++ < 10_000) {
    const res: ApiResult<{ data: T[]; next_page: { path: string } | null }> = await m.api(next);
    if (res.status !== 200) throw new Error(`GET ${next} → ${res.status} ${res.text}`);
    out.push(...res.body.data);
    next = res.body.next_page ? res.body.next_page.path : null;
  }
  return out;
}

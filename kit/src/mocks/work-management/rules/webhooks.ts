/**
 * Webhooks (seed "Events": they notify about events on resources and have a filter object; the
 * seed shows neither delivery, handshake nor payload, so those follow the reference, "Webhooks"):
 * - create runs the handshake: the mock POSTs to `target` with `X-Hook-Secret` and the target
 *   must echo it with 200/204 while the create is in flight, or the create fails (400);
 * - each kept event of the resource's stream (events bubble up as the stream's do) that passes the
 *   filters is delivered as `POST target {events: [...]}` with `X-Hook-Signature` = HMAC-SHA256
 *   of the raw body keyed with the secret, after the API request that caused it has answered;
 * - values carry only `gid` and `resource_type`;
 * - a non-2xx answer is retried with doubling waits, a bounded number of times, then dropped:
 *   delivery is at most once (and the stream's event loss applies), so receivers reconcile.
 * Unlike the real service, loopback targets are allowed (tests and the harness listen there).
 */
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { badRequest } from '../api/api-error';
import type { Gid } from '../model';
import type { EventRef, StoredEvent } from './events';

export interface WebhookFilter {
  resource_type: string;
  resource_subtype?: string;
  action?: string;
  fields?: string[];
}

export interface Webhook {
  gid: Gid;
  resource: EventRef;
  workspace: Gid;
  target: string;
  filters: WebhookFilter[];
  secret: string;
  active: boolean;
  createdAt: number;
  lastSuccessAt: number | null;
  lastFailureAt: number | null;
  lastFailureContent: string;
  deliveryRetryCount: number;
}

const ACTIONS = new Set(['changed', 'added', 'removed', 'deleted', 'undeleted']);
const MAX_ATTEMPTS = 4;
const DELIVERY_TIMEOUT_MS = 10_000;

/** The `filters` of a create body, validated; 400 on anything but an array of `{resource_type, ...}`. */
export function parseFilters(raw: unknown): WebhookFilter[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw badRequest('filters: Value is not an array');
  return raw.map((f: unknown, i) => {
    if (typeof f !== 'object' || f === null || Array.isArray(f)) throw badRequest(`filters[${i}]: Value is not an object`);
    const o = f as Record<string, unknown>;
    if (typeof o.resource_type !== 'string' || o.resource_type === '') throw badRequest(`filters[${i}].resource_type: Missing input`);
    if (o.action !== undefined && (typeof o.action !== 'string' || !ACTIONS.has(o.action))) throw badRequest(`filters[${i}].action: Invalid value`);
    if (o.resource_subtype !== undefined && typeof o.resource_subtype !== 'string') throw badRequest(`filters[${i}].resource_subtype: Invalid value`);
    if (o.fields !== undefined && (!Array.isArray(o.fields) || !o.fields.every((x) => typeof x === 'string'))) {
      throw badRequest(`filters[${i}].fields: Value is not an array of strings`);
    }
    return {
      resource_type: o.resource_type,
      ...(o.resource_subtype !== undefined ? { resource_subtype: o.resource_subtype as string } : {}),
      ...(o.action !== undefined ? { action: o.action as string } : {}),
      ...(o.fields !== undefined ? { fields: o.fields as string[] } : {}),
    };
  });
}

function passes(filters: WebhookFilter[], e: StoredEvent): boolean {
  if (filters.length === 0) return true;
  return filters.some(
    (f) =>
      f.resource_type === e.resource.resource_type &&
      (f.resource_subtype === undefined || f.resource_subtype === e.resource.resource_subtype) &&
      (f.action === undefined || f.action === e.action) &&
      (f.fields === undefined || (e.change !== undefined && f.fields.includes(e.change.field))),
  );
}

function compact(value: unknown): unknown {
  if (value && typeof value === 'object' && 'gid' in value && 'resource_type' in value) {
    const v = value as { gid: unknown; resource_type: unknown };
    return { gid: v.gid, resource_type: v.resource_type };
  }
  return value;
}

/** A webhook event: like the stream's, with values reduced to `gid` and `resource_type`. */
export function renderWebhookEvent(e: StoredEvent, now: (t: number) => string): Record<string, unknown> {
  const change = e.change ? Object.fromEntries(Object.entries(e.change).map(([k, v]) => [k, compact(v)])) : undefined;
  return {
    user: compact(e.user),
    created_at: now(e.createdAt),
    action: e.action,
    resource: compact(e.resource),
    parent: compact(e.parent),
    ...(change ? { change } : {}),
  };
}

export class WebhookRegistry {
  private readonly hooks = new Map<Gid, Webhook>();
  private readonly pending = new Map<Gid, StoredEvent[]>();
  private readonly inFlight = new Set<Promise<void>>();
  private flushScheduled = false;

  constructor(
    private readonly now: () => number,
    private readonly retryDelayMs: () => number,
  ) {}

  /** Sends the handshake to `target`; the secret when the target echoed it with 200/204, else 400. */
  async handshake(target: string): Promise<string> {
    const secret = crypto.randomBytes(32).toString('hex');
    let res: Response;
    try {
      res = await fetch(target, { method: 'POST', headers: { 'X-Hook-Secret': secret }, signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS) });
      await res.arrayBuffer();
    } catch {
      throw badRequest('The remote server did not respond to the handshake request');
    }
    if ((res.status !== 200 && res.status !== 204) || res.headers.get('x-hook-secret') !== secret) {
      throw badRequest('The remote server did not respond with the handshake secret');
    }
    return secret;
  }

  add(hook: Webhook): void {
    this.hooks.set(hook.gid, hook);
  }

  /** The webhooks by gid (read-only use: lookups). */
  asMap(): ReadonlyMap<Gid, Webhook> {
    return this.hooks;
  }

  list(workspace: Gid, resource?: Gid): Webhook[] {
    return [...this.hooks.values()].filter((h) => h.workspace === workspace && (resource === undefined || h.resource.gid === resource));
  }

  delete(gid: Gid): boolean {
    this.pending.delete(gid);
    return this.hooks.delete(gid);
  }

  /** Queues a kept event for every webhook that listens where it happened; sent once the current request is done. */
  notify(event: StoredEvent): void {
    for (const hook of this.hooks.values()) {
      if (!hook.active || !event.scopes.includes(hook.resource.gid) || !passes(hook.filters, event)) continue;
      const queue = this.pending.get(hook.gid) ?? [];
      queue.push(event);
      this.pending.set(hook.gid, queue);
    }
    if (this.pending.size > 0 && !this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Resolves once nothing is queued nor being delivered (tests and the harness wait on it). */
  async settled(): Promise<void> {
    while (this.flushScheduled || this.inFlight.size > 0) {
      if (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
      else await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    for (const [gid, events] of this.pending) {
      const hook = this.hooks.get(gid);
      if (!hook) continue;
      const iso = (t: number): string => new Date(t).toISOString();
      const body = JSON.stringify({ events: events.map((e) => renderWebhookEvent(e, iso)) });
      const delivery = this.deliver(hook, body).finally(() => this.inFlight.delete(delivery));
      this.inFlight.add(delivery);
    }
    this.pending.clear();
  }

  private async deliver(hook: Webhook, body: string): Promise<void> {
    const signature = crypto.createHmac('sha256', hook.secret).update(body).digest('hex');
    for (let attempt = 1; attempt <= MAX_ATTEMPTS && this.hooks.has(hook.gid); attempt++) {
      const failure = await this.post(hook.target, body, signature);
      if (failure === undefined) {
        hook.lastSuccessAt = this.now();
        hook.deliveryRetryCount = 0;
        return;
      }
      hook.lastFailureAt = this.now();
      hook.lastFailureContent = failure;
      hook.deliveryRetryCount++;
      if (attempt < MAX_ATTEMPTS) await sleep(this.retryDelayMs() * 2 ** (attempt - 1), undefined, { ref: false });
    }
  }

  /** Undefined on a 2xx answer, else what went wrong. */
  private async post(target: string, body: string, signature: string): Promise<string | undefined> {
    try {
      const res = await fetch(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Hook-Signature': signature },
        body,
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      });
      const text = await res.text();
      return res.ok ? undefined : `${res.status} ${text.slice(0, 200)}`;
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }
}

/** The wire form of a webhook. */
export function renderWebhook(h: Webhook): Record<string, unknown> {
  const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString());
  return {
    gid: h.gid,
    resource_type: 'webhook',
    active: h.active,
    resource: h.resource,
    target: h.target,
    filters: h.filters,
    created_at: iso(h.createdAt),
    last_success_at: iso(h.lastSuccessAt),
    last_failure_at: iso(h.lastFailureAt),
    last_failure_content: h.lastFailureContent,
    delivery_retry_count: h.deliveryRetryCount,
  };
}

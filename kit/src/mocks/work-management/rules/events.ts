/**
 * Events with sync tokens (seed "Events"; reference §7):
 * - the first request carries no sync token and gets 412 with a fresh token in `sync`;
 * - each later request passes the token of the immediately preceding response and gets at most
 *   100 events (1,000 on workspace streams) plus `has_more`;
 * - re-requesting the current token returns the same results;
 * - a token expires (24 h by default, or when its events were purged, or when the admin expires
 *   every token) and then gives 412 again with a fresh token;
 * - events bubble up: a project stream includes its tasks', subtasks' and their stories' events;
 * - delivery is at most once: with `eventLossRate` set, that share of events never shows up.
 */
import { SignedTokens } from '../signed-tokens';
import { Random } from '../random';

export type EventAction = 'changed' | 'added' | 'removed' | 'deleted' | 'undeleted';

export interface EventRef {
  gid: string;
  resource_type: string;
  name?: string;
  resource_subtype?: string;
}

export interface EventChange {
  field: string;
  action: 'changed' | 'added' | 'removed';
  new_value?: unknown;
  added_value?: unknown;
  removed_value?: unknown;
}

export interface StoredEvent {
  seq: number;
  createdAt: number;
  action: EventAction;
  resource: EventRef;
  parent: EventRef | null;
  change?: EventChange | undefined;
  user: EventRef | null;
  /** Gids whose streams include this event (resource, ancestors, projects, workspace). */
  scopes: string[];
}

export type NewEvent = Omit<StoredEvent, 'seq' | 'createdAt'>;

export class EventLog {
  private readonly events: StoredEvent[] = [];
  private nextSeq = 1;
  /** Highest seq dropped by retention: tokens older than it have lost events and are invalid. */
  private purgedThrough = 0;
  /** Bumping it invalidates every token handed out so far (admin "expire sync tokens"). */
  epoch = 0;
  /** Delivery is at most once: this share of events is silently never delivered (hostility). */
  lossRate = 0;
  private lossRng = new Random('event-loss');
  /** Told of each event that is kept (webhooks deliver the same events as the streams). */
  onKept: ((event: StoredEvent) => void) | undefined;
  private readonly now: () => number;
  private readonly retentionMs: number;

  constructor(options: { now: () => number; retentionMs: number }) {
    this.now = options.now;
    this.retentionMs = options.retentionMs;
  }

  /** Draws which events are lost from `seed` (the hostility seed), so a run's losses are reproducible and differ by seed. */
  seedLoss(seed: string): void {
    this.lossRng = new Random(`event-loss:${seed}`);
  }

  append(event: NewEvent): StoredEvent {
    const stored: StoredEvent = { ...event, seq: this.nextSeq++, createdAt: this.now() };
    if (this.lossRate > 0 && this.lossRng.chance(this.lossRate)) return stored;
    this.events.push(stored);
    this.purge();
    this.onKept?.(stored);
    return stored;
  }

  /** The seq of the last event appended (0 when none). */
  head(): number {
    return this.nextSeq - 1;
  }

  isPurged(afterSeq: number): boolean {
    this.purge();
    return afterSeq < this.purgedThrough;
  }

  /** Events for `scope` after `afterSeq`, at most `max`; `position` is where the next read starts. */
  read(scope: string, afterSeq: number, max: number): { events: StoredEvent[]; hasMore: boolean; position: number } {
    this.purge();
    const out: StoredEvent[] = [];
    let i = this.firstIndexAfter(afterSeq);
    for (; i < this.events.length; i++) {
      const e = this.events[i] as StoredEvent;
      if (!e.scopes.includes(scope)) continue;
      if (out.length === max) return { events: out, hasMore: true, position: (out[out.length - 1] as StoredEvent).seq };
      out.push(e);
    }
    return { events: out, hasMore: false, position: this.head() };
  }

  all(): readonly StoredEvent[] {
    return this.events;
  }

  private firstIndexAfter(seq: number): number {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.events[mid] as StoredEvent).seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private purge(): void {
    const cutoff = this.now() - this.retentionMs;
    let drop = 0;
    while (drop < this.events.length && (this.events[drop] as StoredEvent).createdAt < cutoff) drop++;
    if (drop > 0) {
      this.purgedThrough = (this.events[drop - 1] as StoredEvent).seq;
      this.events.splice(0, drop);
    }
  }
}

export interface SyncPosition {
  resource: string;
  position: number;
}

/** Opaque, signed sync tokens: `{resource, position, issued at, epoch}`. */
export class SyncTokens extends SignedTokens {
  issue(resource: string, position: number, epoch: number): string {
    const payload = Buffer.from(JSON.stringify({ r: resource, p: position, t: this.now(), e: epoch })).toString('base64url');
    return `${payload}${this.sign(payload).slice(0, 32)}`;
  }

  /** The position a token points at, or undefined when it is forged, foreign, stale or expired. */
  verify(token: string, resource: string, epoch: number): SyncPosition | undefined {
    if (token.length <= 32) return undefined;
    const payload = token.slice(0, -32);
    const sig = token.slice(-32);
    const expected = this.sign(payload).slice(0, 32);
    if (!this.signatureMatches(sig, expected)) return undefined;
    try {
      const parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { r?: unknown; p?: unknown; t?: unknown; e?: unknown };
      if (parsed.r !== resource || typeof parsed.p !== 'number' || typeof parsed.t !== 'number' || parsed.e !== epoch) return undefined;
      if (this.now() - parsed.t > this.ttlMs()) return undefined;
      return { resource, position: parsed.p };
    } catch {
      return undefined;
    }
  }

  private sign(payload: string): string {
    return this.hmac(`sync:${payload}`);
  }
}

export const SYNC_INVALID_MESSAGE =
  'Sync token invalid or too old. If you are attempting to keep resources in sync, you must fetch the full dataset for this query now and use the new sync token for the next sync.';

/** The wire form of an event. */
export function renderEvent(e: StoredEvent): Record<string, unknown> {
  return {
    user: e.user,
    created_at: new Date(e.createdAt).toISOString(),
    type: e.resource.resource_type,
    action: e.action,
    resource: e.resource,
    parent: e.parent,
    ...(e.change ? { change: e.change } : {}),
  };
}

/**
 * `POST /webhooks/<source>?resource=<gid>`: where the work-management service delivers webhooks
 * (outside the /v1 contract, like the OAuth token endpoint), one target per webhook (the resource
 * it listens to), since each webhook has a secret of its own. A handshake (`X-Hook-Secret`) is
 * echoed back and its secret kept, only while a registration of that webhook expects one; a delivery must carry
 * `X-Hook-Signature`, the HMAC-SHA256 of its raw body keyed with that secret (compared in
 * constant time, 401 otherwise), and then asks for an incremental sync of the source. The events
 * themselves are not trusted for content: the sync reads the source's event stream, so a lost
 * delivery costs only latency (polling with `sync --every` is the fallback).
 */
import crypto from 'node:crypto';
import express, { type RequestHandler, type Router } from 'express';
import { GatewayError } from '../../errors/gateway-error';
import type { Logger } from '../../logging/create-logger';
import type { WebhookKey, WebhookSecretsRepository } from '../../staging/repositories/webhook-secrets-repository';
import type { SyncRequester } from './sync-requester';

export const WEBHOOKS_PATH = '/webhooks';

export interface WebhookReceiverDeps {
  /** The source (its id prefix) whose webhooks arrive at `/webhooks/<source>`. */
  source: string;
  secrets: WebhookSecretsRepository;
  requester: SyncRequester;
  logger: Logger;
}

function signatureMatches(secret: string, body: Buffer, presented: string): boolean {
  const expected = crypto.createHmac('sha256', secret).update(body).digest();
  const given = /^[0-9a-f]{64}$/i.test(presented) ? Buffer.from(presented, 'hex') : Buffer.alloc(0);
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

/** The webhook a request is for: the resource its target names ('' for a target registered before resources were kept). */
function keyOf(source: string, query: unknown): WebhookKey {
  const resource = (query as Record<string, unknown>).resource;
  return { source, resource: typeof resource === 'string' ? resource : '' };
}

function receive(d: WebhookReceiverDeps): RequestHandler {
  return async function receiveWebhook(req, res, next) {
    res.locals.route = 'webhook';
    try {
      const key = keyOf(d.source, req.query);
      const handshake = req.header('x-hook-secret');
      if (handshake !== undefined) {
        if (handshake.length < 16 || !(await d.secrets.acceptHandshake(key, handshake))) {
          next(new GatewayError('AUTHENTICATION_FAILED', 'No webhook handshake is expected.'));
          return;
        }
        d.logger.info(key, 'webhook handshake accepted');
        res.setHeader('X-Hook-Secret', handshake);
        res.status(204).end();
        return;
      }
      const secret = await d.secrets.secretOf(key);
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      if (!secret || !signatureMatches(secret, body, req.header('x-hook-signature') ?? '')) {
        next(new GatewayError('AUTHENTICATION_FAILED', 'Webhook signature missing or invalid.'));
        return;
      }
      d.requester.request(d.source);
      res.status(204).end();
    } catch (error) {
      next(error);
    }
  };
}

/** The router to mount at `WEBHOOKS_PATH`. */
export function webhookReceiverRoute(d: WebhookReceiverDeps): Router {
  const router = express.Router();
  router.post(`/${encodeURIComponent(d.source)}`, express.raw({ type: () => true, limit: '5mb' }), receive(d));
  return router;
}

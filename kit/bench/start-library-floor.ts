import express from 'express';
import helmet from 'helmet';
import pino from 'pino';
import { pinoHttp } from 'pino-http';
import { listenOnLoopback, type LoopbackServer } from 'content-gateway/lib';

/**
 * The most the gateway's chosen libraries allow for a single-file GET: Express 5 with helmet's
 * headers and pino-http's line a request (to a silent logger, as the bench gateway logs), each used
 * as its documentation shows, answering `GET /v1/files/:id` from a Map of the staged files' JSON
 * held in memory. No authentication, no contract validation, no database, no limits: what the
 * gateway adds is all left out, so no gateway built on these libraries, as documented, can be
 * faster on this machine. `files` maps a file's id to its served JSON.
 */
export function startLibraryFloor(files: ReadonlyMap<string, string>): Promise<LoopbackServer> {
  const app = express();
  app.use(helmet());
  app.use(pinoHttp({ logger: pino({ level: 'silent' }) }));
  app.get('/v1/files/:id', (req, res) => {
    const body = files.get(req.params.id);
    if (body === undefined) res.status(404).json({ error: { code: 'NOT_FOUND', message: 'No such file.' } });
    else res.type('application/json').send(body);
  });
  return listenOnLoopback(app);
}

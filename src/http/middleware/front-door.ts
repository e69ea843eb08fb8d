import type { NextFunction, Request, Response } from 'express';
import type { GatewayError } from '../../errors/gateway-error';

/** Starts something for the whole request (a log line, a timer) or sets what every answer carries. */
export type RequestObserver = (req: Request, res: Response) => void;
/** A check that refuses a request with the error to answer, or lets it through. */
export type RequestGuard = (req: Request, res: Response) => GatewayError | undefined;

export interface FrontDoorSteps {
  observers: readonly RequestObserver[];
  /** Before admission: what no request may be, whatever the load. */
  guards: readonly RequestGuard[];
  /** Load shedding (`admission`): calls back once the request may go on, or with its refusal. */
  admit: (req: Request, res: Response, then: NextFunction) => void;
  /** After admission, in order. */
  admittedGuards: readonly RequestGuard[];
}

/**
 * Every request's own steps before routing as one middleware: the observers, the guards, the
 * admission and the guards after it, in that order, the first refusal going to the error handler.
 * As eight Express middlewares they cost a pass through the router's `next` each (layer matching,
 * a try/catch, a promise check), for steps that are a few property reads.
 */
export function frontDoor(steps: FrontDoorSteps) {
  const { observers, guards, admit, admittedGuards } = steps;
  const afterAdmission = (req: Request, res: Response, next: NextFunction): void => {
    for (const guard of admittedGuards) {
      const refusal = guard(req, res);
      if (refusal) {
        next(refusal);
        return;
      }
    }
    next();
  };
  return function frontDoorMiddleware(req: Request, res: Response, next: NextFunction): void {
    for (const observe of observers) observe(req, res);
    for (const guard of guards) {
      const refusal = guard(req, res);
      if (refusal) {
        next(refusal);
        return;
      }
    }
    admit(req, res, (error?: unknown) => {
      if (error) {
        next(error);
        return;
      }
      try {
        afterAdmission(req, res, next);
      } catch (thrown) {
        next(thrown);
      }
    });
  };
}

import type { RunningSimulator } from '@content-gateway/kit/test/mocks/platform/simulator-harness';

/** Every request a client sent, in order (URL as sent, method), through a wrapped global fetch. */
export function recordingFetch(): { fetch: typeof fetch; sent: Array<{ method: string; url: string; at: number }>; inFlightMax: () => number } {
  const sent: Array<{ method: string; url: string; at: number }> = [];
  let inFlight = 0;
  let max = 0;
  const wrapped: typeof fetch = async (input, init) => {
    sent.push({ method: init?.method ?? 'GET', url: String(input instanceof Request ? input.url : input), at: Date.now() });
    inFlight += 1;
    max = Math.max(max, inFlight);
    try {
      return await fetch(input, init);
    } finally {
      inFlight -= 1;
    }
  };
  return { fetch: wrapped, sent, inFlightMax: () => max };
}

/** A sleep that moves the simulator's clock instead of waiting, recording each wait. */
export function simulatedSleep(p: RunningSimulator): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms: number) => {
      waits.push(ms);
      await p.sim.advanceClock(ms);
    },
  };
}

/** The simulator's clock: a base clock plus an offset tests move with `advance`. */
export interface SimulatorClock {
  now(): number;
  advance(ms: number): void;
  iso(): string;
}

export function createClock(base: () => number = () => Date.now()): SimulatorClock {
  let offset = 0;
  const now = (): number => base() + offset;
  return {
    now,
    advance: (ms) => {
      if (!Number.isFinite(ms) || ms < 0) throw new Error(`the clock only moves forward; got ${ms}`);
      offset += ms;
    },
    iso: () => new Date(now()).toISOString(),
  };
}

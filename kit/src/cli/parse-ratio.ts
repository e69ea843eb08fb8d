import { InvalidArgumentError } from 'commander';

/** A share from 0 to 1 (`--fault-rate 0.05`); commander reports anything else as a usage error. */
export function parseRatio(text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('takes a number from 0 to 1');
  return n;
}

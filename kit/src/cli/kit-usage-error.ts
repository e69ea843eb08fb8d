/**
 * A mistake on the kit's command line, printed as one line by the kit's entry: thrown from an option's
 * parser instead of commander's InvalidArgumentError, whose message repeats the value given (a
 * secret must never be repeated) and is followed by the whole help text.
 */
export class KitUsageError extends Error {
  override readonly name = 'KitUsageError';
}

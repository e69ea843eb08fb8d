import { z } from 'zod';

const scalar = z.union([z.string(), z.number()]);

/**
 * Where a run left the database. `position` is the last row read in `(order column, id)` order
 * (documents by modified time, or the change table by sequence), exact as the database wrote it;
 * `users` and `groups` what was yielded (those that disappear are deleted next run); `mapping`
 * the mapping's fingerprint (a checkpoint of another mapping is refused: the next run is full).
 * `progress` only in the checkpoints a full run yields as it goes: the last document id done.
 */
export const sqlCheckpointSchema = z.strictObject({
  version: z.literal(1),
  mapping: z.string().min(1),
  mode: z.enum(['modified', 'changes', 'none']),
  position: z.strictObject({ value: scalar, id: scalar }).nullable(),
  users: z.array(z.string()),
  groups: z.array(z.string()),
  progress: z.strictObject({ after: scalar.nullable() }).optional(),
});

export type SqlCheckpoint = z.infer<typeof sqlCheckpointSchema>;

/** One (user, file) pair on which the gateway and the oracle disagree. */
export interface AccessMismatch {
  file: string;
  user: string;
}

export interface AccessComparison {
  filesCompared: number;
  pairsCompared: number;
  overExposed: AccessMismatch[];
  underExposed: AccessMismatch[];
  /** Oracle objects the gateway does not serve (with the users who should have seen them). */
  missing: Array<{ file: string; users: number }>;
}

/**
 * Compares, for every file, the users the gateway's access lists let through (`granted`) with the
 * users the source's own model says may see it (`expected`), over the whole user population:
 * every (user, file) pair is either agreed, over-exposed (granted, not expected) or
 * under-exposed (expected, not granted).
 */
export function compareAccess(
  expected: ReadonlyMap<string, readonly string[]>,
  granted: ReadonlyMap<string, ReadonlySet<string>>,
  population: number,
): AccessComparison {
  const result: AccessComparison = { filesCompared: 0, pairsCompared: 0, overExposed: [], underExposed: [], missing: [] };
  for (const [file, users] of expected) {
    const actual = granted.get(file);
    if (!actual) {
      if (users.length > 0) result.missing.push({ file, users: users.length });
      for (const user of users) result.underExposed.push({ file, user });
      continue;
    }
    result.filesCompared++;
    result.pairsCompared += population;
    const want = new Set(users);
    for (const user of actual) if (!want.has(user)) result.overExposed.push({ file, user });
    for (const user of want) if (!actual.has(user)) result.underExposed.push({ file, user });
  }
  for (const file of granted.keys()) {
    if (!expected.has(file)) for (const user of granted.get(file) ?? []) result.overExposed.push({ file, user });
  }
  return result;
}

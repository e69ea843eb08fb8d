import type { Db } from '../database/create-db';

/** What staging holds of one source. */
export interface SourceCounts {
  source: string;
  files: number;
  deletedFiles: number;
  users: number;
  groups: number;
}

type Count = number | string;

/** How many files (active, and tombstones), user accounts and groups each source has staged: three grouped counts. */
export async function sourceCensus(db: Db): Promise<SourceCounts[]> {
  const [files, users, groups] = await Promise.all([
    db('files').select('source', 'status').count({ n: '*' }).groupBy('source', 'status') as Promise<Array<{ source: string; status: string; n: Count }>>,
    db('users').select('source').count({ n: '*' }).groupBy('source') as Promise<Array<{ source: string; n: Count }>>,
    db('groups').select('source').count({ n: '*' }).groupBy('source') as Promise<Array<{ source: string; n: Count }>>,
  ]);
  const bySource = new Map<string, SourceCounts>();
  const of = (source: string): SourceCounts => {
    const counts = bySource.get(source) ?? { source, files: 0, deletedFiles: 0, users: 0, groups: 0 };
    bySource.set(source, counts);
    return counts;
  };
  for (const row of files) {
    if (row.status === 'active') of(row.source).files += Number(row.n);
    else of(row.source).deletedFiles += Number(row.n);
  }
  for (const row of users) of(row.source).users += Number(row.n);
  for (const row of groups) of(row.source).groups += Number(row.n);
  return [...bySource.values()].sort((a, b) => a.source.localeCompare(b.source));
}

/**
 * The search index over the ingested files (MiniSearch: BM25-style scoring, prefix and fuzzy
 * matching). Searching always takes the set of files the asker may VIEW: the filter runs inside
 * the search, so a file outside it can never come back.
 */
import MiniSearch from 'minisearch';
import type { CorpusSnapshot, IngestedFile } from './ingest/corpus-snapshot';

export interface SearchHit {
  file: IngestedFile;
  score: number;
  /** The passage of the file's text that matches best. */
  snippet: string;
  terms: string[];
}

const SNIPPET_MAX = 280;

/** The sentence (or line) with the most query terms, cut to a readable length. */
export function bestSnippet(text: string, terms: readonly string[]): string {
  const sentences = text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
  let best = sentences[0] ?? '';
  let bestScore = -1;
  for (const s of sentences) {
    const lower = s.toLowerCase();
    const score = terms.reduce((n, t) => n + (lower.includes(t.toLowerCase()) ? 1 : 0), 0);
    if (score > bestScore) {
      best = s;
      bestScore = score;
    }
  }
  return best.length > SNIPPET_MAX ? `${best.slice(0, SNIPPET_MAX - 1).trimEnd()}…` : best;
}

export class CorpusIndex {
  private readonly search = new MiniSearch<{ id: string; name: string; text: string }>({
    fields: ['name', 'text'],
    storeFields: [],
    searchOptions: { boost: { name: 2 }, prefix: true, fuzzy: 0.2, combineWith: 'OR' },
  });

  constructor(private readonly snapshot: CorpusSnapshot) {
    this.search.addAll([...snapshot.files.values()].map((f) => ({ id: f.id, name: f.name, text: f.text })));
  }

  get size(): number {
    return this.search.documentCount;
  }

  /** The best `limit` files among `allowed` for the question. */
  query(question: string, allowed: ReadonlySet<string>, limit: number): SearchHit[] {
    const results = this.search.search(question, { filter: (r) => allowed.has(String(r.id)) });
    const hits: SearchHit[] = [];
    for (const r of results.slice(0, limit)) {
      const file = this.snapshot.files.get(String(r.id));
      if (file) hits.push({ file, score: r.score, terms: r.terms, snippet: bestSnippet(file.text, r.terms) });
    }
    return hits;
  }
}

import type { Attributes } from '../adapters/adapter';
import { nearestName } from '../lib/nearest-name';
import { policyProjections } from './policy-projection';
import type { Policy } from './policy-types';

type Root = 'user' | 'doc';
const WHAT: Record<Root, string> = { user: 'user', doc: 'document' };

/**
 * The attribute names a run's users and documents carry, to say which attributes a policy reads
 * that none has (issue 29): a test of an absent attribute is never true, so a misspelt `doc.levl`
 * silently grants nothing. Fed every user and document of a full run.
 */
export class AttributeCensus {
  private readonly names: Record<Root, Set<string>> = { user: new Set(), doc: new Set() };
  private readonly counts: Record<Root, number> = { user: 0, doc: 0 };

  note(root: Root, attributes: Attributes | undefined): void {
    this.counts[root]++;
    for (const name of Object.keys(attributes ?? {})) this.names[root].add(name);
  }

  /** One message per attribute the policy reads that no user (or document) noted has. */
  absent(policy: Policy): string[] {
    const reads = policyProjections(policy);
    const messages: string[] = [];
    for (const root of ['user', 'doc'] as const) {
      if (this.counts[root] === 0) continue;
      const have = this.names[root];
      for (const name of reads[root].attributes.keys()) {
        if (have.has(name)) continue;
        const nearest = nearestName(name, have);
        const known = have.size ? [...have].sort().join(', ') : 'none';
        messages.push(
          `access policy reads ${root}.${name}, which no ${WHAT[root]} of this run has (of ${this.counts[root]}): the rules testing it grant nothing${nearest ? `; did you mean ${root}.${nearest}?` : ''} (${WHAT[root]}s have: ${known})`,
        );
      }
    }
    return messages;
  }
}

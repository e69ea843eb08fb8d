import { compareCodePoints } from '../staging/read-path/code-point-order';
import type { ComparisonOp, FilterClause } from './collection-spec';

const OP_ORDER: readonly ComparisonOp[] = ['eq', 'ge', 'gt', 'le', 'lt'];

/** The tighter of two bounds on one field: the higher lower bound (`gt` over `ge` at a tie), the lower upper bound (`lt` over `le`). */
function tighter<F extends string>(kept: FilterClause<F> | undefined, next: FilterClause<F>, lower: boolean): FilterClause<F> {
  if (!kept) return next;
  const order = compareCodePoints(next.value, kept.value);
  if (order === 0) return next.op === 'gt' || next.op === 'lt' ? next : kept;
  return (lower ? order > 0 : order < 0) ? next : kept;
}

/**
 * A `$filter`'s comparisons (joined by `and`) reduced to the same set of rows in a canonical
 * form: on each field, one lower bound, one upper bound and each distinct `eq` value, in a fixed
 * order. Values compare by code point, as the staging keys and timestamps do (byte order on both
 * databases). A filter that matches rows names each field's `eq` value at most once, so the form a
 * `$skiptoken` carries stays a few comparisons however long the filter was.
 */
export function reduceFilter<F extends string>(clauses: ReadonlyArray<FilterClause<F>>): Array<FilterClause<F>> {
  type Kept = { lower?: FilterClause<F>; upper?: FilterClause<F>; eq: Map<string, FilterClause<F>> };
  const fields = new Map<F, Kept>();
  for (const clause of clauses) {
    const kept: Kept = fields.get(clause.field) ?? { eq: new Map() };
    fields.set(clause.field, kept);
    if (clause.op === 'eq') kept.eq.set(clause.value, clause);
    else if (clause.op === 'gt' || clause.op === 'ge') kept.lower = tighter(kept.lower, clause, true);
    else kept.upper = tighter(kept.upper, clause, false);
  }
  const reduced: Array<FilterClause<F>> = [];
  for (const kept of fields.values()) {
    reduced.push(...kept.eq.values());
    if (kept.lower) reduced.push(kept.lower);
    if (kept.upper) reduced.push(kept.upper);
  }
  return reduced.sort((a, b) => compareCodePoints(a.field, b.field) || OP_ORDER.indexOf(a.op) - OP_ORDER.indexOf(b.op) || compareCodePoints(a.value, b.value));
}

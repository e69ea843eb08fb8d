/**
 * `opt_fields`: a comma-separated list of dotted paths selecting exactly the named fields (plus
 * `gid`, always). Paths may start with `this.` and may contain groups, as in
 * `this.(followers|assignee).email`. Unknown names are ignored, as the real service does on the
 * endpoints where that was observed.
 */
export type Selection = Map<string, Selection | true>;

export function parseOptFields(raw: string | string[] | undefined): Selection | undefined {
  if (raw === undefined) return undefined;
  const list = (Array.isArray(raw) ? raw : [raw]).flatMap((r) => splitTopLevel(r));
  const selection: Selection = new Map();
  for (const entry of list) {
    for (const path of expandGroups(entry.trim())) {
      const parts = path.split('.').filter((p) => p.length > 0);
      if (parts[0] === 'this') parts.shift();
      if (parts.length === 0) continue;
      let node = selection;
      parts.forEach((part, i) => {
        const last = i === parts.length - 1;
        const existing = node.get(part);
        if (last) {
          if (existing === undefined) node.set(part, true);
          // `member` next to `member.name`: the bare name adds the identity (resource_type).
          else if (existing instanceof Map) existing.set('resource_type', true);
        } else {
          if (existing instanceof Map) node = existing;
          else {
            const child: Selection = new Map();
            if (existing === true) child.set('resource_type', true);
            node.set(part, child);
            node = child;
          }
        }
      });
    }
  }
  return selection;
}

/** Splits on commas outside parentheses. */
function splitTopLevel(raw: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of raw) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (ch === ',' && depth === 0) {
      if (current.trim()) out.push(current.trim());
      current = '';
    } else current += ch;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

/** `a.(b|c).d` → `a.b.d`, `a.c.d` (groups may nest). */
export function expandGroups(path: string): string[] {
  const open = path.indexOf('(');
  if (open < 0) return [path];
  let depth = 0;
  let close = -1;
  for (let i = open; i < path.length; i++) {
    if (path[i] === '(') depth++;
    else if (path[i] === ')') {
      depth--;
      if (depth === 0) {
        close = i;
        break;
      }
    }
  }
  if (close < 0) return [path.replace(/[()]/g, '')];
  const inner = path.slice(open + 1, close);
  const alternatives: string[] = [];
  let d = 0;
  let cur = '';
  for (const ch of inner) {
    if (ch === '(') d++;
    if (ch === ')') d--;
    if (ch === '|' && d === 0) {
      alternatives.push(cur);
      cur = '';
    } else cur += ch;
  }
  alternatives.push(cur);
  const prefix = path.slice(0, open);
  const suffix = path.slice(close + 1);
  return alternatives.flatMap((alt) => expandGroups(`${prefix}${alt}${suffix}`));
}

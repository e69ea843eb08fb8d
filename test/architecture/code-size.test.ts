import ts from 'typescript';
import { parse, sourceFiles } from './source-graph';

const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;

/**
 * Over the limits still, each to be split (and then deleted from here; the test fails while a
 * listed one is back within the limits). Nothing may be added.
 */
const PENDING: readonly string[] = [
  // Pushed over by the first Prettier pass (issue 28), not by new code: to be split next.
  'function cli/conformance-command.ts registerConformanceCommand',
  'file config/config-schema.ts',
  'function conformance/checks/file-checks.ts downloadFindings',
  'function conformance/checks/identity-checks.ts identityChecks',
  'function conformance/checks/paging-checks.ts pagingChecks',
  'function http/create-app.ts createApp',
  'function http/staging-metrics.ts registerStagingMetrics',
];

function nameOf(node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(source);
  return `<function at line ${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}>`;
}

/** Every file and function of src/ over its limit, as `file <path>` and `function <path> <name>`. */
function oversized(): string[] {
  const out: string[] = [];
  for (const file of sourceFiles()) {
    const source = parse(file);
    if (source.getLineAndCharacterOfPosition(source.getEnd()).line + 1 > MAX_FILE_LINES) out.push(`file ${file}`);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        if (last - first + 1 > MAX_FUNCTION_LINES) out.push(`function ${file} ${nameOf(node, source)}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

describe(`src/: no file over ${MAX_FILE_LINES} lines, no function over ${MAX_FUNCTION_LINES}`, () => {
  const found = oversized();

  it('has nothing over the limits beyond the pending list', () => {
    expect(found.filter((f) => !PENDING.includes(f))).toEqual([]);
  });

  it('keeps the pending list to what is still over the limits', () => {
    expect(PENDING.filter((p) => !found.includes(p))).toEqual([]);
  });
});

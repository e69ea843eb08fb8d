import ts from 'typescript';
import { parse, sourceFiles } from './source-graph';

const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;

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

  it('has nothing over the limits', () => {
    expect(found).toEqual([]);
  });
});

import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const SRC = path.join(__dirname, '../../src');

/** Every TypeScript file under `src/`, relative to it, with `/` separators. */
export function sourceFiles(dir = SRC): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory()
        ? sourceFiles(path.join(dir, e.name))
        : e.name.endsWith('.ts')
          ? [path.relative(SRC, path.join(dir, e.name)).split(path.sep).join('/')]
          : [],
    );
}

export const MIGRATIONS = path.join(__dirname, '../../migrations');

/** Every migration file, relative to `src/` (`../migrations/<name>.ts`), so its imports resolve as any source file's. */
export function migrationFiles(): string[] {
  return fs
    .readdirSync(MIGRATIONS)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => path.relative(SRC, path.join(MIGRATIONS, name)).split(path.sep).join('/'));
}

export function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, fs.readFileSync(path.join(SRC, file), 'utf8'), ts.ScriptTarget.Latest, true);
}

/** One import (or re-export) of a file: where it points and whether it carries only types. */
export interface Import {
  from: string;
  /** The imported file relative to `src/` (`../x` when outside it), or the package name. */
  to: string;
  local: boolean;
  typeOnly: boolean;
}

function typeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node))
    return (
      node.isTypeOnly || (node.exportClause !== undefined && ts.isNamedExports(node.exportClause) && node.exportClause.elements.every((e) => e.isTypeOnly))
    );
  const clause = node.importClause;
  if (!clause) return false; // a side-effect import
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

function resolve(from: string, specifier: string): string {
  const base = path.join(path.dirname(path.join(SRC, from)), specifier);
  const found = [`${base}.ts`, path.join(base, 'index.ts'), base].find((c) => fs.existsSync(c) && fs.statSync(c).isFile());
  return path
    .relative(SRC, found ?? base)
    .split(path.sep)
    .join('/');
}

/** The imports of a file: static imports, re-exports, `import()` and `require()` of literals. */
export function importsOf(file: string, source = parse(file)): Import[] {
  const out: Import[] = [];
  const add = (specifier: string, only: boolean) => {
    const local = specifier.startsWith('.');
    out.push({ from: file, to: local ? resolve(file, specifier) : specifier, local, typeOnly: only });
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      add(node.moduleSpecifier.text, typeOnly(node));
    else if (
      ts.isCallExpression(node) &&
      node.arguments.length === 1 &&
      ts.isStringLiteral(node.arguments[0]!) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    ) {
      add(node.arguments[0].text, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

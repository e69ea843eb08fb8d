/**
 * The shell command lines of a Markdown guide: every line of its fenced ```sh / ```bash /
 * ```shell / ```console blocks, and of unlabeled blocks that open with a command, split into
 * simple commands (words after shell quoting; `&&`, `||`, `;` and `|` separate commands,
 * redirections and comments dropped, `\` continuations joined, `$ ` prompts stripped).
 */

/** One simple command of a guide: where it is, its text, and its words. */
export interface DocCommand {
  file: string;
  line: number;
  text: string;
  words: string[];
}

const SHELL_LABELS = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);
const FENCE = /^\s*(```+|~~~+)\s*([\w-]*)/;

/** The lines of a block that are commands: in a console block only prompted ones; comments and blanks never. */
function commandLines(lines: Array<{ n: number; text: string }>, console: boolean): Array<{ n: number; text: string }> {
  const out: Array<{ n: number; text: string }> = [];
  for (let i = 0; i < lines.length; i++) {
    const first = lines[i] as { n: number; text: string };
    let text = first.text.trim();
    if (console) {
      if (!text.startsWith('$ ')) continue;
      text = text.slice(2);
    }
    while (text.endsWith('\\') && i + 1 < lines.length) text = `${text.slice(0, -1)} ${(lines[++i] as { text: string }).text.trim()}`;
    if (text && !text.startsWith('#')) out.push({ n: first.n, text });
  }
  return out;
}

/** The fenced blocks of a Markdown text, with their label and numbered lines. */
function fencedBlocks(markdown: string): Array<{ label: string; lines: Array<{ n: number; text: string }> }> {
  const blocks: Array<{ label: string; lines: Array<{ n: number; text: string }> }> = [];
  let open: { fence: string; label: string; lines: Array<{ n: number; text: string }> } | undefined;
  markdown.split('\n').forEach((text, index) => {
    const fence = FENCE.exec(text);
    if (open && fence && fence[1]?.startsWith(open.fence) && !fence[2]) {
      blocks.push(open);
      open = undefined;
    } else if (open) open.lines.push({ n: index + 1, text });
    else if (fence) open = { fence: fence[1] as string, label: (fence[2] ?? '').toLowerCase(), lines: [] };
  });
  return blocks;
}

/**
 * Every simple command of a guide's shell blocks. `opensWithCommand` decides whether an unlabeled
 * block is shell (its first line's program is one the checker knows).
 */
export function docCommands(file: string, markdown: string, opensWithCommand: (words: string[]) => boolean): DocCommand[] {
  const out: DocCommand[] = [];
  for (const block of fencedBlocks(markdown)) {
    const shell = SHELL_LABELS.has(block.label);
    const lines = commandLines(block.lines, block.label === 'console');
    if (!shell && (block.label || !lines[0] || !opensWithCommand(simpleCommands(lines[0].text)[0] ?? []))) continue;
    for (const line of lines) for (const words of simpleCommands(line.text)) out.push({ file, line: line.n, text: line.text, words });
  }
  return out;
}

const OPERATORS = ['&&', '||', ';', '|'];

/** `$( … )` from `start` (at the `$`): its end index, nested parentheses and quotes included. */
function substitutionEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i;
  }
  return text.length - 1;
}

/** A quoted string from `start` (at the quote): its unquoted content and its end index. */
function quoted(text: string, start: number): { value: string; end: number } {
  const quote = text[start];
  let value = '';
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i] as string;
    if (c === quote) return { value, end: i };
    if (quote === '"' && c === '\\') value += text[++i] ?? '';
    else if (quote === '"' && c === '$' && text[i + 1] === '(') {
      const end = substitutionEnd(text, i);
      value += text.slice(i, end + 1);
      i = end;
    } else value += c;
  }
  return { value, end: text.length };
}

/** `<connector name>`, `<key>`: a placeholder (not a redirection) ends at its `>`; -1 when `start` opens none. */
function placeholderEnd(text: string, start: number): number {
  const m = /^<[^\s<>][^<>]*>/.exec(text.slice(start));
  return m ? start + m[0].length - 1 : -1;
}

/** The words and operators of a line, as the shell splits them (comments dropped). */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (c === '<' && placeholderEnd(text, i) > i) {
      const end = placeholderEnd(text, i);
      word = (word ?? '') + text.slice(i, end + 1);
      i = end;
    } else if (/\s/.test(c) || op || c === '>' || c === '<') {
      if (word !== undefined) words.push(word);
      word = undefined;
      if (op) words.push(op);
      if (op) i += op.length - 1;
      else if (c === '>' || c === '<') words.push(c);
    } else if (c === '#' && word === undefined) break;
    else if (c === "'" || c === '"') {
      const q = quoted(text, i);
      word = (word ?? '') + q.value;
      i = q.end;
    } else if (c === '$' && text[i + 1] === '(') {
      const end = substitutionEnd(text, i);
      word = (word ?? '') + text.slice(i, end + 1);
      i = end;
    } else word = (word ?? '') + (c === '\\' ? (text[++i] ?? '') : c);
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** A line's simple commands: words split at operators, each redirection and its target dropped. */
export function simpleCommands(text: string): string[][] {
  const commands: string[][] = [[]];
  const words = shellWords(text);
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    if (OPERATORS.includes(w)) commands.push([]);
    else if (w === '>' || w === '<') i++;
    else (commands[commands.length - 1] as string[]).push(w);
  }
  return commands.filter((c) => c.length > 0);
}

const INLINE = /`((?:npm (?:run|start|test|ci)|npx content-gateway|content-gateway |node dist\/src\/main\.js|curl )[^`]*)`/g;

/** The commands of a guide's prose: inline code spans (outside fenced blocks) that open with one of ours. */
export function inlineCommands(file: string, markdown: string): DocCommand[] {
  const out: DocCommand[] = [];
  let fenced = false;
  markdown.split('\n').forEach((text, index) => {
    if (FENCE.test(text)) fenced = !fenced;
    else if (!fenced)
      for (const m of text.matchAll(INLINE))
        for (const words of simpleCommands(m[1] as string)) out.push({ file, line: index + 1, text: m[1] as string, words });
  });
  return out;
}

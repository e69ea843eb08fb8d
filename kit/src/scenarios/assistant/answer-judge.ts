import type { PlannedQuestion } from './question-plan';
import type { SeenAnswer } from './scenario-platform';

/** Who may see what, by the work-management oracle: file id (`task:<gid>`, `attachment:<gid>`) → user gids. */
export class OracleView {
  private readonly audience = new Map<string, ReadonlySet<string>>();

  constructor(tasks: ReadonlyMap<string, readonly string[]>, attachments: ReadonlyMap<string, readonly string[]>) {
    for (const [gid, users] of tasks) this.audience.set(`task:${gid}`, new Set(users));
    for (const [gid, users] of attachments) this.audience.set(`attachment:${gid}`, new Set(users));
  }

  /** Whether the object exists in the source (deleted ones are unknown to the oracle). */
  knows(nativeId: string): boolean {
    return this.audience.has(nativeId);
  }

  /** False for objects the oracle does not know (deleted, or never existed): nobody may see them. */
  canSee(user: string, nativeId: string): boolean {
    return this.audience.get(nativeId)?.has(user) ?? false;
  }
}

export interface JudgedAnswer {
  question: PlannedQuestion;
  answer: SeenAnswer;
  /** Gateway file ids cited, in citation order. */
  cited: string[];
  /** Citation URLs no gateway file has. */
  unresolved: string[];
  /** Cited files the oracle says the asker may not see. */
  leaked: string[];
  /** Whether the oracle lets the asker see the targeted task now. */
  targetVisible: boolean;
  /** The targeted task is visible, the only file naming its code name, and was not cited. */
  missed: boolean;
}

/**
 * Judges one answer against the oracle: every citation resolved to a gateway file by its URL (the
 * only thing a citation carries), then leaked if the oracle says the asker may not see that file;
 * the answer missed if the asker may see the one file with the question's code name and it is not
 * among the citations.
 */
export function judgeAnswer(
  question: PlannedQuestion,
  answer: SeenAnswer,
  fileByUrl: ReadonlyMap<string, string>,
  oracle: OracleView,
  source: string,
): JudgedAnswer {
  const prefix = `${source}:`;
  const cited: string[] = [];
  const unresolved: string[] = [];
  for (const url of answer.citationUrls) {
    const id = fileByUrl.get(url);
    if (id) cited.push(id);
    else unresolved.push(url);
  }
  const user = question.asker.user;
  const leaked = cited.filter((id) => !id.startsWith(prefix) || !oracle.canSee(user, id.slice(prefix.length)));
  const target = `${prefix}task:${question.task}`;
  const targetVisible = oracle.canSee(user, `task:${question.task}`);
  return { question, answer, cited, unresolved, leaked, targetVisible, missed: targetVisible && !cited.includes(target) };
}

/** What the scenario saw of one gateway file across every answer. */
export interface FileUsage {
  file: string;
  surfaced: number;
  cited: number;
  helpful: number;
  unhelpful: number;
}

/** Per file: surfaced (the platform's records of each answer), cited (the answers' citations), feedback given. */
export class UsageLedger {
  private readonly files = new Map<string, FileUsage>();

  private of(file: string): FileUsage {
    let u = this.files.get(file);
    if (!u) this.files.set(file, (u = { file, surfaced: 0, cited: 0, helpful: 0, unhelpful: 0 }));
    return u;
  }

  surfaced(files: readonly string[]): void {
    for (const f of files) this.of(f).surfaced++;
  }

  cited(files: readonly string[]): void {
    for (const f of files) this.of(f).cited++;
  }

  /** Feedback on an answer counts for every file it cites. */
  feedback(files: readonly string[], rating: 'helpful' | 'unhelpful'): void {
    for (const f of files) this.of(f)[rating]++;
  }

  get(file: string): FileUsage | undefined {
    return this.files.get(file);
  }

  all(): FileUsage[] {
    return [...this.files.values()].sort((a, b) => a.file.localeCompare(b.file));
  }

  totals(): Omit<FileUsage, 'file'> {
    const t = { surfaced: 0, cited: 0, helpful: 0, unhelpful: 0 };
    for (const u of this.files.values()) for (const k of ['surfaced', 'cited', 'helpful', 'unhelpful'] as const) t[k] += u[k];
    return t;
  }
}

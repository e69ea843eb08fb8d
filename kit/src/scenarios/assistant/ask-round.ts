import { judgeAnswer, type JudgedAnswer, type OracleView, type UsageLedger } from './answer-judge';
import type { PlannedQuestion } from './question-plan';
import type { ScenarioPlatform } from './scenario-platform';

export interface AskContext {
  platform: ScenarioPlatform;
  /** Gateway file id by external URL, as listed after the last sync. */
  fileByUrl: ReadonlyMap<string, string>;
  oracle: OracleView;
  source: string;
  ledger: UsageLedger;
  /** Feedback goes on every n-th answer that cites something (0: none). */
  feedbackEvery: number;
  /** Answers with citations so far, across rounds (decides which get feedback). */
  citing: { count: number };
}

export interface RoundFeedback {
  conversationId: string;
  rating: 'helpful' | 'unhelpful';
  files: string[];
}

/** An answer's conversation read (or its answer rated) by someone other than its asker. */
export interface ForeignReadLeak {
  reader: string;
  owner: string;
  conversationId: string;
  /** Whether the reader rated the answer too. */
  rated: boolean;
  /** Files the reader saw cited that the oracle says the reader may not see. */
  files: string[];
}

export interface AskedRound {
  label: string;
  judged: JudgedAnswer[];
  feedback: RoundFeedback[];
  /** Answers someone other than their asker tried to read and rate, and those not refused. */
  foreignReads: { tried: number; leaks: ForeignReadLeak[] };
}

/** The next asker after `index` who is not its asker: the person who tries to read that answer's conversation. */
function otherAsker(questions: readonly PlannedQuestion[], index: number): PlannedQuestion['asker'] | undefined {
  const own = questions[index]?.asker.email;
  for (let step = 1; step < questions.length; step++) {
    const asker = questions[(index + step) % questions.length]?.asker;
    if (asker && asker.email !== own) return asker;
  }
  return undefined;
}

/** Someone else reads the answer's conversation and rates it: each must be refused; what was shown is judged as the reader's. */
async function tryForeignRead(ctx: AskContext, j: JudgedAnswer, reader: PlannedQuestion['asker']): Promise<ForeignReadLeak | undefined> {
  const read = await ctx.platform.readAs(reader.email, j.answer);
  if (read.refused) return undefined;
  const shown = judgeAnswer({ ...j.question, asker: reader }, { ...j.answer, citationUrls: read.citationUrls }, ctx.fileByUrl, ctx.oracle, ctx.source);
  return { reader: reader.email, owner: j.answer.email, conversationId: j.answer.conversationId, rated: read.rated, files: shown.leaked };
}

/**
 * Asks every planned question as its asker, judges each answer against the oracle, records the
 * citations in the ledger and gives feedback on some answers: helpful when the targeted task is
 * cited, unhelpful otherwise (the asker did not get the file they asked about).
 */
export async function askRound(label: string, questions: readonly PlannedQuestion[], ctx: AskContext): Promise<AskedRound> {
  const judged: JudgedAnswer[] = [];
  const feedback: RoundFeedback[] = [];
  const foreignReads: AskedRound['foreignReads'] = { tried: 0, leaks: [] };
  for (const [index, question] of questions.entries()) {
    const answer = await ctx.platform.ask(question.asker.email, question.text);
    const j = judgeAnswer(question, answer, ctx.fileByUrl, ctx.oracle, ctx.source);
    judged.push(j);
    ctx.ledger.cited(j.cited);
    const reader = otherAsker(questions, index);
    if (reader) {
      foreignReads.tried++;
      const leak = await tryForeignRead(ctx, j, reader);
      if (leak) foreignReads.leaks.push(leak);
    }
    if (j.cited.length === 0 || !answer.feedback || ctx.feedbackEvery <= 0) continue;
    if (ctx.citing.count++ % ctx.feedbackEvery !== 0) continue;
    const rating = j.cited.includes(`${ctx.source}:task:${question.task}`) ? 'helpful' : 'unhelpful';
    await ctx.platform.feedback(answer, rating);
    ctx.ledger.feedback(j.cited, rating);
    feedback.push({ conversationId: answer.conversationId, rating, files: j.cited });
  }
  return { label, judged, feedback, foreignReads };
}

export interface RoundSummary {
  label: string;
  questions: number;
  /** Questions about a task the asker may see, and about one they may not. */
  aboutVisible: number;
  aboutHidden: number;
  answersCiting: number;
  citations: number;
  leaked: Array<{ user: string; email: string; file: string; question: string }>;
  missed: Array<{ user: string; email: string; task: string; question: string }>;
  unresolved: string[];
  feedback: { helpful: number; unhelpful: number };
  /** Answers whose conversation someone other than the asker tried to read and rate; the attempts not refused. */
  foreignReads: AskedRound['foreignReads'];
}

export function summariseRound(round: AskedRound): RoundSummary {
  const j = round.judged;
  return {
    label: round.label,
    questions: j.length,
    aboutVisible: j.filter((x) => x.targetVisible).length,
    aboutHidden: j.filter((x) => !x.targetVisible).length,
    answersCiting: j.filter((x) => x.cited.length > 0).length,
    citations: j.reduce((n, x) => n + x.cited.length, 0),
    leaked: j.flatMap((x) => x.leaked.map((file) => ({ user: x.question.asker.user, email: x.question.asker.email, file, question: x.question.text }))),
    missed: j
      .filter((x) => x.missed)
      .map((x) => ({ user: x.question.asker.user, email: x.question.asker.email, task: x.question.task, question: x.question.text })),
    unresolved: j.flatMap((x) => x.unresolved),
    feedback: {
      helpful: round.feedback.filter((f) => f.rating === 'helpful').length,
      unhelpful: round.feedback.filter((f) => f.rating === 'unhelpful').length,
    },
    foreignReads: round.foreignReads,
  };
}

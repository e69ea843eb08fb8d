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

export interface AskedRound {
  label: string;
  judged: JudgedAnswer[];
  feedback: RoundFeedback[];
}

/**
 * Asks every planned question as its asker, judges each answer against the oracle, records the
 * citations in the ledger and gives feedback on some answers: helpful when the targeted task is
 * cited, unhelpful otherwise (the asker did not get the file they asked about).
 */
export async function askRound(label: string, questions: readonly PlannedQuestion[], ctx: AskContext): Promise<AskedRound> {
  const judged: JudgedAnswer[] = [];
  const feedback: RoundFeedback[] = [];
  for (const question of questions) {
    const answer = await ctx.platform.ask(question.asker.email, question.text);
    const j = judgeAnswer(question, answer, ctx.fileByUrl, ctx.oracle, ctx.source);
    judged.push(j);
    ctx.ledger.cited(j.cited);
    if (j.cited.length === 0 || !answer.feedback || ctx.feedbackEvery <= 0) continue;
    if (ctx.citing.count++ % ctx.feedbackEvery !== 0) continue;
    const rating = j.cited.includes(`${ctx.source}:task:${question.task}`) ? 'helpful' : 'unhelpful';
    await ctx.platform.feedback(answer, rating);
    ctx.ledger.feedback(j.cited, rating);
    feedback.push({ conversationId: answer.conversationId, rating, files: j.cited });
  }
  return { label, judged, feedback };
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
  };
}

export interface ErrorBudgetLimits {
  /** More failures than this abort the run. */
  maxFailures: number;
  /** A failure share above this aborts the run, once `minItems` items have been seen. */
  maxFailureRatio: number;
  minItems: number;
}

export const DEFAULT_ERROR_BUDGET: ErrorBudgetLimits = { maxFailures: 100, maxFailureRatio: 0.2, minItems: 50 };

export class SyncAbortedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SyncAbortedError';
  }
}

/**
 * Per-item failures are recorded and the run goes on, until they show a systematic problem:
 * then the run aborts before its sweep, so a broken source never turns into mass deletion.
 */
export class ErrorBudget {
  private failures = 0;
  private items = 0;

  constructor(private readonly limits: ErrorBudgetLimits) {}

  item(): void {
    this.items++;
  }

  /** Records a failure; throws SyncAbortedError (chained to it) when the budget is spent. */
  fail(error: Error): void {
    this.failures++;
    this.items++;
    const { maxFailures, maxFailureRatio, minItems } = this.limits;
    if (this.failures > maxFailures) {
      throw new SyncAbortedError(`More than ${maxFailures} items failed; the run stopped without deleting anything. Last failure: ${error.message}`, {
        cause: error,
      });
    }
    if (this.items >= minItems && this.failures / this.items > maxFailureRatio) {
      throw new SyncAbortedError(
        `${this.failures} of ${this.items} items failed (over ${Math.round(maxFailureRatio * 100)} %); the run stopped without deleting anything. Last failure: ${error.message}`,
        { cause: error },
      );
    }
  }
}

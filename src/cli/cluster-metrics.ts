import type { Cluster, Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { GatewayMetrics } from '../http/gateway-metrics';

const ASK = 'content-gateway:metrics-request';
const ANSWER = 'content-gateway:metrics-answer';
const TIMEOUT_MS = 6_000;

interface Ask {
  type: typeof ASK;
  id: number;
}
interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

const isAsk = (m: unknown): m is Ask => typeof m === 'object' && m !== null && (m as Ask).type === ASK;
const isAnswer = (m: unknown): m is Answer => typeof m === 'object' && m !== null && (m as Answer).type === ANSWER;

/**
 * `/metrics` of a gateway with several workers: the worker a scrape reaches asks the primary,
 * which gathers every worker's registry (prom-client's `AggregatorRegistry`: counters and
 * histograms add up, figures read from the database count once) and answers the whole host's
 * figures, so a scrape never sees one worker's share. This is the primary's side.
 */
export function gatherMetricsForWorkers(cluster: Cluster): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', function answerMetrics(worker: Worker, message: unknown) {
    if (!isAsk(message)) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: ANSWER, id: message.id, text } satisfies Answer),
      (error: unknown) => worker.send({ type: ANSWER, id: message.id, error: error instanceof Error ? error.message : String(error) } satisfies Answer),
    );
  });
}

/**
 * A worker's side: offers `registry` to the primary's gathering (call it before serving), and
 * returns the `/metrics` text source that asks the primary for every worker's figures.
 */
export function metricsFromPrimary(cluster: Cluster, registry: Registry): (own: GatewayMetrics) => Promise<string> {
  const worker = cluster.worker;
  if (!worker) throw new Error('metricsFromPrimary runs in a cluster worker');
  new AggregatorRegistry(); // listens for the primary's requests for this worker's figures
  AggregatorRegistry.setRegistries([registry]);
  const pending = new Map<number, { resolve(text: string): void; reject(error: Error): void }>();
  let next = 0;
  worker.on('message', function receiveMetrics(message: unknown) {
    if (!isAnswer(message)) return;
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (message.text !== undefined) waiting?.resolve(message.text);
    else waiting?.reject(new Error(`metrics of the other workers: ${message.error ?? 'no answer'}`));
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = (next += 1);
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error('metrics of the other workers: the primary did not answer in time'));
      }, TIMEOUT_MS);
      pending.set(id, {
        resolve: (text) => {
          clearTimeout(timer);
          resolve(text);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      worker.send({ type: ASK, id } satisfies Ask);
    });
}

import type { Context } from 'aws-lambda';
import { createReconcileApp } from '../lib/composition/runtime-fleet-apps.js';
import { lambdaApp } from '../lib/lambda-app.js';

const app = lambdaApp(createReconcileApp);

/**
 * EventBridge schedules: missed webhooks, drift, failed or thrashing syncs, and the production checklist;
 * and, on its own every-minute schedule (`{"sweepOnly": true}`), the sweep of open rollouts alone.
 */
export const handler = async (event: unknown, context?: Context): Promise<Record<string, unknown>> => {
  const remaining = context?.getRemainingTimeInMillis();
  const instance = await app();
  try {
    if ((event as { sweepOnly?: unknown } | null)?.sweepOnly === true) {
      return await instance.reconcile({ sweepOnly: true });
    }
    // Stop auditing 30 s before the Lambda would be cut off, so the pass still writes what it found.
    return await instance.reconcile(
      remaining === undefined ? {} : { timeBudgetMs: Math.max(10_000, remaining - 30_000) },
    );
  } finally {
    instance.metrics?.flush();
  }
};

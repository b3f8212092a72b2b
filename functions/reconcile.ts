import type { Context } from 'aws-lambda';
import { lambdaApp } from '../lib/lambda-app.js';
import { createReconcileApp } from '../lib/runtime-fleet-apps.js';

const app = lambdaApp(createReconcileApp);

/** EventBridge schedule: missed webhooks, drift, failed or thrashing syncs, and the production checklist. */
export const handler = async (_event: unknown, context?: Context): Promise<Record<string, unknown>> => {
  const remaining = context?.getRemainingTimeInMillis();
  const instance = await app();
  try {
    // Stop auditing 30 s before the Lambda would be cut off, so the pass still writes what it found.
    return await instance.reconcile(
      remaining === undefined ? {} : { timeBudgetMs: Math.max(10_000, remaining - 30_000) },
    );
  } finally {
    instance.metrics?.flush();
  }
};

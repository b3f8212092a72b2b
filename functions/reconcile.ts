import { lambdaApp } from '../lib/lambda-app.js';

/** EventBridge schedule: missed webhooks, drift, failed or thrashing syncs, and the production checklist. */
export const handler = async (): Promise<Record<string, unknown>> => (await lambdaApp()).reconcile();

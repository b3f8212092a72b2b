import { webhookHandler } from '../lib/handlers.js';
import { lambdaApp } from '../lib/lambda-app.js';
import { createWebhookApp } from '../lib/runtime.js';

/** `POST /webhooks/{provider}`: verify, de-duplicate, record the delivery, enqueue, answer 202 fast. */
export const handler = webhookHandler(lambdaApp(createWebhookApp));

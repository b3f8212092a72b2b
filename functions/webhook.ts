import { createWebhookApp } from '../lib/composition/runtime-webhook.js';
import { webhookHandler } from '../lib/handlers.js';
import { lambdaApp } from '../lib/lambda-app.js';

/**
 * `POST /webhooks/{provider}`: verify, de-duplicate, record the delivery, enqueue, answer 202 fast. Also the
 * target of the ECR EventBridge rule, whose events it takes as `/webhooks/ecr` without a signature.
 */
export const handler = webhookHandler(lambdaApp(createWebhookApp));

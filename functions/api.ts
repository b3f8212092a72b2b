import { apiHandler } from '../lib/handlers.js';
import { lambdaApp } from '../lib/lambda-app.js';
import { createApiApp } from '../lib/runtime.js';

/** `GET /rollouts/{sha}`, `/apps/{cluster}/{namespace}/{name}/history`, `/findings`, `/healthz`. */
export const handler = apiHandler(lambdaApp(createApiApp));

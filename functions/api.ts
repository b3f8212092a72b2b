import { createApiApp, loadApiConfig } from '../lib/composition/runtime-api.js';
import { apiHandler } from '../lib/handlers.js';
import { lambdaApp } from '../lib/lambda-app.js';

/** `GET /rollouts/{sha}`, `/apps/{cluster}/{namespace}/{name}/history`, `/findings`, `/healthz`. */
export const handler = apiHandler(lambdaApp(createApiApp, loadApiConfig));

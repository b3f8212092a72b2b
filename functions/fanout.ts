import { createFanoutApp } from '../lib/composition/runtime-fleet-apps.js';
import { fanoutHandler } from '../lib/handlers.js';
import { lambdaApp } from '../lib/lambda-app.js';

/** SQS (from webhook): match apps across the fleet, preflight ExternalSecrets, refresh, start tracking. */
export const handler = fanoutHandler(lambdaApp(createFanoutApp));

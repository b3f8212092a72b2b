import { createTrackApp } from '../lib/composition/runtime-fleet-apps.js';
import { trackHandler } from '../lib/handlers.js';
import { lambdaApp } from '../lib/lambda-app.js';

/** SQS with delay (re-enqueues itself): follow each sync to its end, record, keep Slack current. */
export const handler = trackHandler(lambdaApp(createTrackApp));

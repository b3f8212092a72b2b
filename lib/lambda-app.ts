import type { App } from './app.js';
import { loadConfigFromProcess } from './config.js';
import { createRuntime } from './runtime.js';

let app: Promise<App> | undefined;

/**
 * The Lambda's App, built once per cold start. A bad setting fails here with one line naming it, and
 * every invocation of this container fails the same way until the setting is fixed.
 */
export function lambdaApp(): Promise<App> {
  app ??= Promise.resolve().then(() => {
    try {
      return createRuntime(loadConfigFromProcess());
    } catch (error) {
      console.error(`configuration error: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    }
  });
  return app;
}

import type { RuntimeOverrides } from './composition/runtime.js';
import { type Config, loadConfigFromProcess } from './config.js';

/**
 * One function's App, built once per cold start by its own builder (`createWebhookApp`, ...), so the bundle
 * holds only that function's code. A bad setting fails here with one line naming it, and every invocation
 * of this container fails the same way until the setting is fixed.
 */
export function lambdaApp<A>(build: (config: Config, overrides?: RuntimeOverrides) => A): () => Promise<A> {
  let app: Promise<A> | undefined;
  return () => {
    app ??= Promise.resolve().then(() => {
      try {
        return build(loadConfigFromProcess());
      } catch (error) {
        console.error(`configuration error: ${error instanceof Error ? error.message : String(error)}`);
        throw error;
      }
    });
    return app;
  };
}

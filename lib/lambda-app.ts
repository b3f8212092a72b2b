import type { RuntimeOverrides } from './composition/runtime.js';
import { type Config, type Env, loadConfig, loadFromProcess } from './config.js';

type Build<C, A> = (config: C, overrides?: RuntimeOverrides) => A;

/**
 * One function's App, built once per cold start by its own builder (`createWebhookApp`, ...), so the bundle
 * holds only that function's code. Its settings come from the process environment (`loadFromProcess`),
 * through `loadConfig` or the function's own loader (the API's `loadApiConfig`). A bad setting fails
 * here with one line naming it, and every invocation of this container fails the same way until it is fixed.
 */
export function lambdaApp<A>(build: Build<Config, A>): () => Promise<A>;
export function lambdaApp<C, A>(build: Build<C, A>, load: (env: Env) => C): () => Promise<A>;
export function lambdaApp<C, A>(
  build: Build<C, A>,
  // The first overload's C is Config, the default's.
  load: (env: Env) => C = loadConfig as (env: Env) => C,
): () => Promise<A> {
  let app: Promise<A> | undefined;
  return () => {
    app ??= Promise.resolve().then(() => {
      try {
        return build(loadFromProcess(load));
      } catch (error) {
        console.error(`configuration error: ${error instanceof Error ? error.message : String(error)}`);
        throw error;
      }
    });
    return app;
  };
}

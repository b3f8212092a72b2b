import type { App } from '../app.js';
import { createFleetApp, type RuntimeOverrides } from './runtime.js';
import { runtimeBase } from './runtime-adapters.js';
import { type ApiConfig, createApiApp } from './runtime-api.js';
import { createFanout } from './runtime-fanout.js';
import { type FleetBuilder, fleetContext } from './runtime-fleet.js';
import { createReconcile } from './runtime-reconcile.js';
import { createTrack } from './runtime-track.js';
import { createWebhookApp } from './runtime-webhook.js';

/** fanout, track and reconcile over one fleet context: they share its clients, Git pool and caches. */
export const allFleetFunctions: FleetBuilder = async (shared) => {
  const context = await fleetContext(shared);
  return { fanout: createFanout(context), track: createTrack(context), reconcile: createReconcile(context) };
};

/**
 * Every function in one App: the local stack and the benchmarks run all five in one process. (The Lambda
 * bundles never import this module: it reaches every function's code.)
 */
export function createRuntime(config: ApiConfig, overrides: RuntimeOverrides = {}): App {
  const base = runtimeBase(config, overrides);
  const shared = { ...overrides, logger: base.logger, metrics: base.metrics, clock: base.clock };
  return {
    ...createWebhookApp(config, shared),
    ...createApiApp(config, shared),
    ...createFleetApp(config, shared, allFleetFunctions),
  };
}

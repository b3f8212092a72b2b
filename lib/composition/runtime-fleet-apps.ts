import type { FleetApp } from '../app.js';
import type { Config } from '../config.js';
import { createFleetApp, type RuntimeOverrides } from './runtime.js';

// Each fleet Lambda's builder: its own part of the fleet (runtime-fanout.ts, ...) is loaded on its first
// call, so the bundle's import compiles it but does not run it, and no bundle carries another's part.

export function createFanoutApp(config: Config, overrides: RuntimeOverrides = {}): FleetApp {
  return createFleetApp(config, overrides, (shared) =>
    import('./runtime-fanout.js').then((m) => m.fanoutFunctions(shared)),
  );
}

export function createTrackApp(config: Config, overrides: RuntimeOverrides = {}): FleetApp {
  return createFleetApp(config, overrides, (shared) =>
    import('./runtime-track.js').then((m) => m.trackFunctions(shared)),
  );
}

export function createReconcileApp(config: Config, overrides: RuntimeOverrides = {}): FleetApp {
  return createFleetApp(config, overrides, (shared) =>
    import('./runtime-reconcile.js').then((m) => m.reconcileFunctions(shared)),
  );
}

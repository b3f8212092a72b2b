import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { SummaryReporter } from './test/helpers/summary-reporter.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most integration files wait on simulated clusters and deadlines rather than compute: on 2 cores two
    // forks halve the wall time (vitest's default there is one, and the suite ran 12.5 min of CI's 15).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default', new SummaryReporter()],
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});

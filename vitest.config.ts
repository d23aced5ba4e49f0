import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Exact names: `svc/sdk` must not swallow `svc/sdk/testing`.
    alias: [
      { find: /^svc\/sdk$/, replacement: fileURLToPath(new URL('./src/sdk/index.ts', import.meta.url)) },
      { find: /^svc\/sdk\/testing$/, replacement: fileURLToPath(new URL('./src/testing/index.ts', import.meta.url)) },
      { find: /^svc\/config$/, replacement: fileURLToPath(new URL('./src/config/define-config.ts', import.meta.url)) },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Several suites start servers and child processes; two cores cannot run many at once.
    maxWorkers: 2,
  },
});

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: {
      'svc/sdk': fileURLToPath(new URL('./src/sdk/index.ts', import.meta.url)),
      'svc/config': fileURLToPath(new URL('./src/config/define-config.ts', import.meta.url)),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Several suites start servers and child processes; two cores cannot run many at once.
    maxWorkers: 2,
  },
});

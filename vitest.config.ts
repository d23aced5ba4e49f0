import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const integration = ['test/e2e/**/*.test.ts', 'test/store-integration/**/*.test.ts', 'test/cli/**/*.test.ts', 'test/**/*.integration.test.ts'];
const notUnit = ['test/e2e/**', 'test/store-integration/**', 'test/cli/**', 'test/**/*.integration.test.ts'];
/** Test files that mock a module (`vi.mock`), so they must not share a module graph. */
const isolatedUnit = ['test/plugins/shared-secret/constant-time.test.ts'];
/**
 * better-sqlite3 12 built against Node 24.19 or later can abort the process when a garbage
 * collection frees its objects after Node tore down their environment (`Assertion failed: (env)
 * != nullptr` in `RemoveEnvironmentCleanupHook`; reported against better-sqlite3 12 on Node 24 by
 * several projects): a worker that runs many integration files makes and drops thousands. So on
 * Node 24 and later each integration file keeps a process of its own, as before; Node 20 and 22,
 * where `npm test` is measured, share workers.
 */
const integrationSharesWorkers = Number(process.versions.node.split('.')[0]) < 24;
const compileService = 'test/support/compile-service.global.ts';
/** Integration test files that need a process of their own, each with the reason. */
const isolatedIntegration = [
  // Mocks node:worker_threads (vi.mock) to record the signing threads it stops as a crash would.
  'test/oauth/signing-threads.integration.test.ts',
  // Mocks src/testing/free-port.js (vi.mock) to hand out a port it holds, forcing a clash.
  'test/support/server.integration.test.ts',
];

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
    // Guards against a hang, not measures of speed: on a machine busy with other work (load 4
    // and more on 2 cores) a test can take many times its idle duration.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Several suites start servers and child processes; two cores cannot run many at once.
    maxWorkers: 2,
    // Two kinds of test, one command (`npm test` runs both, unit first; each kind has a small
    // `-isolated` project for the files listed above). Where a test file goes is decided by its
    // path alone:
    //   integration  test/e2e/ (the service over HTTP), test/store-integration/, test/cli/ (the
    //                `svc` command, run as a child process), and any `*.integration.test.ts`
    //                elsewhere: a file that starts a server, opens PostgreSQL, Redis or SQLite,
    //                drives Chromium or runs a child process.
    //   unit         every other `*.test.ts`: plain objects, no server, no database, no browser,
    //                no child process, so the whole project runs in seconds.
    // A new test that needs one of those things is named `*.integration.test.ts`.
    // `npx vitest run --project 'unit*'` runs only the fast ones (unit and unit-isolated);
    // `--project 'integration*'` the others.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          // One module graph per worker, not one per file: importing the sources again for each
          // of about a hundred files cost two thirds of the project's CPU time. A file that
          // replaces a module (vi.mock) needs its own graph: it is listed in `isolatedUnit` above.
          isolate: false,
          include: ['test/**/*.test.ts'],
          exclude: [...notUnit, ...isolatedUnit],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'unit-isolated',
          include: isolatedUnit,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          // One module graph per worker, as in unit: importing the sources again for each file
          // took over half the project's time (on two busy cores, Node 20: 1473 s with a process
          // per file, 556 s and 777 s shared; vitest's own "import" sum went from 805 s to 30 s).
          // Each file closes what it opens (servers, databases, child processes) and
          // restores the env variables, spies and process listeners it changes; a file that
          // mocks a module is listed in `isolatedIntegration` above. Not on Node 24 and later
          // (`integrationSharesWorkers` above): a process that makes and drops about a thousand
          // better-sqlite3 objects there can abort, closed or not, with or without vitest.
          isolate: !integrationSharesWorkers,
          // The service compiled once for the tests that spawn `svc` (test/support/compiled-service.ts).
          globalSetup: [compileService],
          include: integration,
          exclude: isolatedIntegration,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration-isolated',
          globalSetup: [compileService],
          include: isolatedIntegration,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});

// `svc` over the compiled service (test/support/compiled-service.ts builds dist/ before the
// integration tests run): the two lines of bin/svc.mjs's branch for an installed package.
const { main } = await import('../../dist/cli/main.js');
process.exitCode = await main(process.argv.slice(2));

// The tests' upstream identity providers, started by hand for docs/guides/signing-users-in.md's "Sign in with your
// identity provider": `node test/support/upstream-demo.mjs`. A GitHub-shaped OAuth 2.0 server
// on 127.0.0.1:5010 (client `gh-client`, secret `gh-secret`; it approves at once as `octocat`)
// and node-oidc-provider on 127.0.0.1:5011 (client `svc`, secret `upstream-secret`; its login
// form takes any login and password), both sending people back to the sample config's
// `http://localhost:5000/connect/authorize/callback`. Ctrl-C stops both.
import { createJiti } from 'jiti';

// tryNative: node-oidc-provider is native ESM, which jiti's own transform cannot load.
const jiti = createJiti(import.meta.url, { interopDefault: true, tryNative: true });
const { startGithubLike, startNodeOidcProvider } = await jiti.import('./upstream-providers.ts');

const callback = process.env.SVC_CALLBACK ?? 'http://localhost:5000/connect/authorize/callback';
const github = await startGithubLike(Number(process.env.GITHUB_PORT ?? 5010));
const oidc = await startNodeOidcProvider(Number(process.env.OIDC_PORT ?? 5011), callback, {
  alice: { email: 'alice@example.com', email_verified: true, name: 'Alice Upstream' },
});
console.log(`GitHub-shaped OAuth 2.0 server: ${github.url}`);
console.log(`node-oidc-provider: ${oidc.url} (any login)`);
const stop = () => void Promise.all([github.close(), oidc.close()]).then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

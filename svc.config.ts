// The sample deployment: one client per flow, with demo secrets. Every secret below is stored
// hashed; the comment next to it gives the demo plain text the README's curl examples use.
// Replace all of them before running anything real (`npx svc hash-secret <secret>`).
import { defineConfig } from 'svc/config';

export default defineConfig({
  // issuer defaults to http://localhost:<port>
  port: 5000,
  // The embedded default: a SQLite file next to this config. Use "postgres://..." for several nodes.
  store: 'sqlite:./data/svc.db',

  apiScopes: [
    { name: 'api1.read', description: 'Read your data in API 1' },
    { name: 'api1.write', description: 'Change your data in API 1' },
    { name: 'backend.read', description: 'Read data in the back-end API (reached by delegation)' },
  ],
  apiResources: [
    // An API authenticates at /connect/introspect with its name and one of its secrets.
    { name: 'api1', scopes: ['api1.read', 'api1.write'], secrets: [{ value: '6wQyUUAdTu9zHPV8/6ZUj+5sLyiatf+sGw+hjp41K8A=', description: 'api1-secret' }] },
    { name: 'backend', scopes: ['backend.read'], secrets: [{ value: 'E6v71T/CI5UM2YA2lgzc/eqTCu+QFAOaFK56JX9PATg=', description: 'api2-secret' }] },
  ],
  identityResources: [
    { name: 'openid', claims: ['sub'] },
    { name: 'profile', description: 'Your name', claims: ['name', 'given_name', 'family_name'] },
    { name: 'email', description: 'Your email address', claims: ['email', 'email_verified'] },
  ],
  users: [
    // password: alice-password (hash made with `npx svc hash-password alice-password`)
    {
      subjectId: '818727',
      username: 'alice',
      password: '$scrypt$ln=15,r=8,p=1$mhlXkX6tUbLjZQFHgaaTHA$ECJyChWPuJMmc98jP8W0GRSEi5Y3IpXKDeWeUOGYVXk',
      claims: { name: 'Alice Smith', given_name: 'Alice', family_name: 'Smith', email: 'alice@example.com', email_verified: true },
    },
    // password: bob-password
    {
      subjectId: '88421113',
      username: 'bob',
      password: '$scrypt$ln=15,r=8,p=1$7TUAkwVDqSt0/7usdGsx/A$hfVJT+raJSSs/2ZyCSKWjbNh9im2j0mscPEE+h7ydog',
      claims: { name: 'Bob Smith', email: 'bob@example.com' },
    },
  ],

  clients: [
    // Machine to machine: client_credentials, JWT access tokens. Secret: m2m-secret
    {
      clientId: 'm2m',
      clientName: 'Machine to machine demo',
      clientSecrets: [{ value: 'M9dee5IXs1ASsN7M0wTsnO7vzzqUs/LagNrdUYQbpys=', description: 'm2m-secret' }],
      allowedGrantTypes: ['client_credentials'],
      allowedScopes: ['api1.read', 'api1.write'],
    },
    // Same flow, but reference (opaque) access tokens that APIs introspect. Secret: reference-secret
    {
      clientId: 'm2m-reference',
      clientSecrets: [{ value: 'ImuQzZfNzb4U9W5S/k7xPf8WGSXZwFMr5j3Px6Q7NcY=', description: 'reference-secret' }],
      allowedGrantTypes: ['client_credentials'],
      allowedScopes: ['api1.read'],
      accessTokenType: 'reference',
    },
    // A first-party app signing users in with the password grant, with refresh tokens. Secret: password-client-secret
    {
      clientId: 'web',
      clientName: 'Demo web app',
      clientSecrets: [{ value: 'cQ9nBI1IotH5hj3z3zNQvsg0ZAjfdd+Mh1S38iRb2j4=', description: 'password-client-secret' }],
      allowedGrantTypes: ['password', 'refresh_token'],
      allowedScopes: ['openid', 'profile', 'email', 'api1.read'],
      allowOfflineAccess: true,
    },
    // API 1 calling the back end on the user's behalf: the delegation extension grant. Secret: delegation-secret
    {
      clientId: 'api1.client',
      clientSecrets: [{ value: 'dtHio7f4VBQ9L1/CEEe0leoTrlZxKVHlh/0r6moU2p4=', description: 'delegation-secret' }],
      allowedGrantTypes: ['delegation'],
      allowedScopes: ['backend.read'],
      // The API this client fronts: it may delegate only user tokens addressed to api1.
      allowedSubjectTokenAudiences: ['api1'],
    },
    // Machine to machine with a private key JWT (RFC 7523) instead of a shared secret. The service
    // holds only the certificate; the demo private key is docs/demo-keys/pkjwt-demo.pem (made by
    // `npx svc create-client-key --client pkjwt-demo --out <file>`; demo only, like every secret here).
    {
      clientId: 'pkjwt-demo',
      clientSecrets: [
        {
          type: 'X509CertificateBase64',
          value: 'MIIBRzCB7qADAgECAhAZrNHjqcCuj1+qxngA5qaYMAoGCCqGSM49BAMCMBUxEzARBgNVBAMTCnBrand0LWRlbW8wHhcNMjYxMTIyMTUyMDIyWhcNMzYxMTE5MTUyMDIyWjAVMRMwEQYDVQQDEwpwa2p3dC1kZW1vMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEeclPw+UQIbIWy1GOg4aiZ2lCh7FilBOdZ9yH5nWCw7YObKc9BKCus8uyI8qKaDxJDRCkwRoOVh2nM9dPRllInKMgMB4wDAYDVR0TAQH/BAIwADAOBgNVHQ8BAf8EBAMCB4AwCgYIKoZIzj0EAwIDSAAwRQIhAPsAvVpxYec5ZvezRQZYHGR4KkDQjbupBDNetS0CN7oqAiAVWEqMG6iSGvaIY4llMxppRaEX+eTG87dv2WVWPA5x2Q==',
          description: 'ES256 demo certificate of pkjwt-demo',
        },
      ],
      allowedGrantTypes: ['client_credentials'],
      allowedScopes: ['api1.read'],
    },
    // A server-side web app signing users in: the authorization code flow with PKCE, refresh
    // tokens, logout back to its home page. Secret: webapp-secret (see README "Sign in a user").
    {
      clientId: 'webapp',
      clientName: 'Demo web app (sign-in)',
      clientSecrets: [{ value: '+Jmfg9hZHZEMO+j9gIOYU52XOqk08LLBj6FIiThYrBA=', description: 'webapp-secret' }],
      allowedGrantTypes: ['authorization_code', 'refresh_token'],
      allowedScopes: ['openid', 'profile', 'email', 'api1.read'],
      allowOfflineAccess: true,
      redirectUris: ['http://localhost:8080/callback'],
      postLogoutRedirectUris: ['http://localhost:8080/'],
    },
    // A single-page app in the browser: public (PKCE, no secret), asks the user's consent, and
    // calls the token endpoint from its own origin (CORS).
    {
      clientId: 'spa',
      clientName: 'Demo single-page app',
      requireClientSecret: false,
      requireConsent: true,
      allowedGrantTypes: ['authorization_code'],
      allowedScopes: ['openid', 'profile', 'api1.read'],
      redirectUris: ['http://localhost:3000/callback'],
      postLogoutRedirectUris: ['http://localhost:3000/'],
      allowedCorsOrigins: ['http://localhost:3000'],
    },
    // A TV or CLI: the device flow, public client (no secret).
    {
      clientId: 'tv',
      clientName: 'Living room TV',
      requireClientSecret: false,
      allowedGrantTypes: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
      allowedScopes: ['openid', 'profile', 'api1.read'],
      allowOfflineAccess: true,
    },
  ],
});

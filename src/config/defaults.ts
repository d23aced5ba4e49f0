/** Every default of the configuration, in one place. `resolve.ts` is the only reader. */
export const defaults = {
  port: 5000,
  host: '127.0.0.1',
  pluginDirs: ['./plugins'],
  /** Every first-party plugin the package ships (`plugins/` inside it). */
  packagePlugins: ['shared-secret', 'private-key-jwt', 'delegation', 'token-exchange', 'mutual-tls', 'workload-identity'],
  store: 'sqlite:./data/svc.db',
  cleanupInterval: 300,
  logLevel: 'info',
  workers: 1,
  client: {
    requireClientSecret: true,
    accessTokenLifetime: 3600,
    accessTokenType: 'jwt',
    allowOfflineAccess: false,
    absoluteRefreshTokenLifetime: 2_592_000,
    slidingRefreshTokenLifetime: 1_296_000,
    // A few seconds covers two tabs and a client's retry after a time-out; longer would let a
    // thief's reuse soon after the client's go unnoticed.
    refreshTokenReuseInterval: 5,
    deviceCodeLifetime: 300,
    pollingInterval: 5,
    /** Any method the client holds secrets for (behaviour before the field existed). */
    tokenEndpointAuthMethods: undefined,
    /** No token may be exchanged (delegation, token exchange) until the APIs the client fronts are listed. */
    allowedSubjectTokenAudiences: [],
    redirectUris: [],
    postLogoutRedirectUris: [],
    // RFC 9700 §2.1.1: PKCE for every client, confidential ones included.
    requirePkce: true,
    requireConsent: false,
    requirePushedAuthorization: false,
    // RFC 6749 §4.1.2 recommends at most 10 minutes; five is IdentityServer's default.
    authorizationCodeLifetime: 300,
    requireCertificateBoundTokens: false,
    requireDPoP: false,
    allowedIdentityTokenSigningAlgorithms: [],
  },
  secretType: 'SharedSecret',
  signing: {
    // ES256 signs about 10x faster than RS256 on this hardware (see README "Signing algorithm").
    accessTokenAlgorithm: 'ES256',
    // OpenID Connect Core §3.1.3.7: RS256 when a client registered none; Discovery §3 requires it.
    idTokenAlgorithms: ['RS256'],
    rotationInterval: 90 * 86_400,
    propagationTime: 3600,
    refreshInterval: 60,
    threads: 0,
  },
  deviceFlow: {
    userCodeFormat: 'base20',
    maxFailedAttempts: 10,
    failedAttemptsWindow: 300,
    // Generous: a household or an office behind one address starts a handful a minute; a flood
    // of hundreds a second (each a stored flow) is what this stops.
    maxAuthorizationsPerAddress: 60,
    maxAuthorizationsPerClient: 6000,
    authorizationsWindow: 60,
  },
  metrics: { enabled: false },
  tracing: { serviceName: 'svc-token-service' },
  authThrottle: { pairThreshold: 5, addressThreshold: 50, maxDelay: 300, window: 900 },
  passwordThrottle: { pairThreshold: 5, userThreshold: 20, addressThreshold: 50, maxDelay: 300, window: 900 },
  // Counts only inactive answers: an API introspecting live tokens at any rate never meets it.
  introspectionLimit: { maxInactive: 6000, window: 60 },
  // A person starts a sign-in or two a minute, an office behind one address a few dozen; the
  // total bounds what every address together keeps in the store: 3000 a minute for the
  // 15 minutes an interaction lives is at most 45,000 records (about 20 MB at the usual size).
  interactionLimit: { maxPerAddress: 60, maxTotal: 3000, window: 60 },
  connections: { firstByteTimeout: 5000, headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5000 },
  // Without a list nobody's forwarding headers are believed.
  trustedProxies: [],
  forwardedHeader: 'x-forwarded-for',
  counters: 'memory',
  counterKeyPrefix: 'svc:',
  // Asking every client for a certificate makes browsers show a picker on the sign-in page.
  tls: { requestClientCertificate: false },
  mtls: { certificateBoundAccessTokens: false },
  dpop: {
    // The common asymmetric set; `Ed25519` is RFC 9864's name for EdDSA with that curve, which
    // oauth4webapi signs with. Every one verifies with node:crypto.
    signingAlgValues: ['ES256', 'PS256', 'RS256', 'EdDSA', 'Ed25519'],
    // RFC 9449 §11.1: proofs are short-lived; five minutes covers a slow client and a retry.
    proofMaxAge: 300,
    clockSkew: 10,
    requireNonce: false,
    nonceLifetime: 300,
  },
  // The database store costs one indexed read per interval while nothing changes.
  clientStores: { database: true, refreshInterval: 5 },
  // Off: opening registration is a decision, and even then only with an initial access token.
  registration: {
    enabled: false,
    allowedGrantTypes: ['authorization_code', 'refresh_token', 'client_credentials'],
    allowedScopes: [],
    allowedAuthMethods: ['client_secret_basic', 'client_secret_post'],
    // Loopback http is for native apps (RFC 8252 §7.3): the operator who registers them says so.
    redirectUris: 'https',
    // Long enough for a client that rarely changes its metadata, short enough that a lost one stops working.
    registrationAccessTokenLifetime: 90 * 86_400,
  },
  limits: {
    bodyBytes: 64 * 1024,
    parameters: 50,
  },
} as const;

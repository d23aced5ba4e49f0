import type { EndpointUrls } from '../sdk/contracts.js';

/** Paths of the service's endpoints; the only place they are spelled. */
export const paths = {
  discovery: '/.well-known/openid-configuration',
  oauthMetadata: '/.well-known/oauth-authorization-server',
  jwks: '/.well-known/openid-configuration/jwks',
  token: '/connect/token',
  introspection: '/connect/introspect',
  revocation: '/connect/revocation',
  deviceAuthorization: '/connect/deviceauthorization',
  devicePage: '/device',
  /** A user changes their own password (issue 34). */
  accountPassword: '/account/password',
  /** "Forgot password?": a reset link by mail (issue 34), when `smtp` is configured. */
  accountPasswordReset: '/account/password-reset',
  /** A user sets up one-time codes and recovery codes (issue 35). */
  accountSecondFactor: '/account/second-factor',
  authorize: '/connect/authorize',
  signIn: '/connect/authorize/sign-in',
  /** Where an external identity provider sends the browser back (a sign-in plugin's `externalSignIn`). */
  signInCallback: '/connect/authorize/callback',
  userinfo: '/connect/userinfo',
  endSession: '/connect/endsession',
  /** Issue 34: where an upstream provider sends the browser back after signing it out there. */
  endSessionCallback: '/connect/endsession/callback',
  par: '/connect/par',
  register: '/connect/register',
  /** The deployment's logo and style sheet files (`pages.logo`, `pages.stylesheet`). */
  assets: '/assets',
} as const;

export function endpointUrls(issuer: string): EndpointUrls {
  const token = issuer + paths.token;
  const introspection = issuer + paths.introspection;
  const revocation = issuer + paths.revocation;
  const deviceAuthorization = issuer + paths.deviceAuthorization;
  return Object.freeze({
    issuer,
    token,
    introspection,
    revocation,
    deviceAuthorization,
    jwks: issuer + paths.jwks,
    byEndpoint: Object.freeze({ token, introspection, revocation, device_authorization: deviceAuthorization, pushed_authorization_request: issuer + paths.par }),
  });
}

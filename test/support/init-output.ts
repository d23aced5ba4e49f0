/**
 * What `svc init` printed, read as a newcomer reads it: the secrets, the password and the
 * `export` line for the sign-in walk of docs/guides/signing-users-in.md.
 */
export interface InitValues {
  readonly clientSecret?: string | undefined;
  readonly apiSecret?: string | undefined;
  readonly webappSecret?: string | undefined;
  readonly userPassword?: string | undefined;
  /** CLIENT_ID, CLIENT_SECRET, USER_NAME, USER_PASSWORD from the printed `export` line. */
  readonly exported: Record<string, string>;
}

const valueAfter = (stdout: string, label: string): string | undefined =>
  new RegExp(`^${label}:\\s+(\\S+)$`, 'm').exec(stdout)?.[1];

export function initValues(stdout: string): InitValues {
  const line = /^ {2}export (.+)$/m.exec(stdout)?.[1] ?? '';
  const exported = Object.fromEntries(line.split(' ').filter(Boolean).map((pair) => {
    const at = pair.indexOf('=');
    return [pair.slice(0, at), pair.slice(at + 1)];
  }));
  return {
    clientSecret: valueAfter(stdout, 'client "app" secret'),
    apiSecret: valueAfter(stdout, 'API "api" secret'),
    webappSecret: valueAfter(stdout, 'client "webapp" secret'),
    userPassword: valueAfter(stdout, 'user "demo" password'),
    exported,
  };
}

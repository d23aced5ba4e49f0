import { InvalidClient, type SecretParser } from 'svc/sdk';

const base64 = /^[A-Za-z0-9+/]+={0,2}$/;
const maxIdLength = 100;
const maxSecretLength = 100;

/** RFC 6749 §2.3.1: both halves are form-urlencoded before they are joined and base64-encoded. */
function formDecode(part: string): string {
  try {
    return decodeURIComponent(part.replaceAll('+', ' '));
  } catch {
    throw new InvalidClient(undefined, { logDetail: 'Basic credentials: bad percent-encoding' });
  }
}

/** `Authorization: Basic base64(urlencode(client_id) ":" urlencode(client_secret))`: client_secret_basic. */
export function createBasicParser(): SecretParser {
  return {
    authenticationMethod: 'client_secret_basic',
    parsedSecretType: 'SharedSecret',
    parse({ authorization }) {
      if (authorization === undefined) return undefined;
      const space = authorization.indexOf(' ');
      const scheme = space === -1 ? authorization : authorization.slice(0, space);
      if (scheme.toLowerCase() !== 'basic') return undefined;
      const encoded = authorization.slice(space + 1).trim();
      if (space === -1 || !base64.test(encoded) || encoded.length % 4 === 1) {
        throw new InvalidClient(undefined, { logDetail: 'Basic credentials: not base64' });
      }
      const decoded = Buffer.from(encoded, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon === -1) throw new InvalidClient(undefined, { logDetail: 'Basic credentials: no colon' });
      const id = formDecode(decoded.slice(0, colon));
      const secret = formDecode(decoded.slice(colon + 1));
      if (!id || id.length > maxIdLength || secret.length > maxSecretLength) {
        throw new InvalidClient(undefined, { logDetail: 'Basic credentials: empty or too long' });
      }
      return { id, credential: secret, type: 'SharedSecret' };
    },
  };
}

import { InvalidClient, type SecretParser } from 'svc/sdk';

/** `client_id` and `client_secret` in the form body: client_secret_post. */
export function createPostBodyParser(): SecretParser {
  return {
    authenticationMethod: 'client_secret_post',
    parsedSecretType: 'SharedSecret',
    // The secret never travels further than client authentication (RFC 6749 §2.3.1).
    parameters: [{ name: 'client_secret', maxLength: 100, credential: true }],
    parse({ params }) {
      const secret = params.get('client_secret');
      if (secret === undefined) return undefined;
      const id = params.get('client_id');
      if (id === undefined) throw new InvalidClient(undefined, { logDetail: 'client_secret without client_id' });
      return { id, credential: secret, type: 'SharedSecret' };
    },
  };
}

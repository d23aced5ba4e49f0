import { InvalidClient, type SecretParser } from 'svc/sdk';

/** `client_id` and `client_secret` in the form body: client_secret_post. */
export function createPostBodyParser(): SecretParser {
  return {
    authenticationMethod: 'client_secret_post',
    parsedSecretType: 'SharedSecret',
    parse({ params }) {
      const secret = params.get('client_secret');
      if (secret === undefined) return undefined;
      const id = params.get('client_id');
      if (id === undefined) throw new InvalidClient(undefined, { logDetail: 'client_secret without client_id' });
      return { id, credential: secret, type: 'SharedSecret' };
    },
  };
}

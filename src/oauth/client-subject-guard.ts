/**
 * Keeps users and clients apart. A client_credentials token's `sub` is the client id (RFC 9068
 * §2.2), so a user whose subject id equals a client id would get tokens an API cannot tell from
 * that client's own. Configured users are checked at start-up (config/cross-checks.ts); a user
 * store plugin's answers are checked here, on every sign-in, since its users are not known
 * before they sign in.
 */
import type { Client } from '../config/schema.js';
import type { Logger, ResourceOwnerValidator } from '../sdk/contracts.js';

export function refuseClientSubjects(users: ResourceOwnerValidator, clients: readonly Client[], logger: Logger): ResourceOwnerValidator {
  const clientIds = new Set(clients.map((c) => c.clientId));
  return {
    async validate(username, password) {
      const owner = await users.validate(username, password);
      if (owner === undefined || !clientIds.has(owner.subjectId)) return owner;
      // Refused like a wrong password: the caller learns nothing about the clash, the operator does.
      logger.warn({ subject: owner.subjectId }, 'sign-in refused: the user store returned a subject id that is also a client id');
      return undefined;
    },
    findBySubject: (subjectId) => users.findBySubject(subjectId),
  };
}

/**
 * The dynamic registration policy (`registration` in the config, RFC 7591): what a registered
 * client may be. Read-only here: it is the config file's, declared once in `config/schema.ts`,
 * whose declaration this answer's schema is.
 */
import { userConfigSchema, type ResolvedConfig } from '../../config/schema.js';
import { defineOperation, type AdminOperation } from '../operation.js';

const policy = userConfigSchema.shape.registration.unwrap().meta({ id: 'RegistrationPolicy' });

export function registrationPolicyRoutes({ config }: { config: Pick<ResolvedConfig, 'registration'> }): AdminOperation[] {
  return [
    defineOperation({
      operationId: 'get-registration-policy', method: 'get', path: '/registration-policy', tag: 'registration', access: 'read',
      summary: 'Reads the dynamic client registration policy (set in the config file).',
      responses: { 200: { description: 'The policy, every default filled in.', schema: policy } },
      async handle() {
        return { status: 200, body: config.registration };
      },
    }),
  ];
}

/** RFC 7523 §2.2: the `client_assertion_type` of a JWT client assertion; the `ParsedSecret.type` the private-key-jwt parser gives it. */
export const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** The secret definition type this plugin judges. */
export const FEDERATED_CREDENTIAL = 'FederatedCredential';

/** RFC 7523 §2.2: the `client_assertion_type` of a JWT client assertion, also our `ParsedSecret.type`. */
export const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

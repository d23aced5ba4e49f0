/** A handle the service issues (reference token, refresh token, device code): issuance time in hex, then 256 random bits. */
export const handlePattern = /^[0-9a-f]{12}[\w-]{43}$/;

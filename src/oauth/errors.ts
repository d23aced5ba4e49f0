/** The OAuth error family lives in the SDK (plugins throw the same errors); the host uses it from here. */
export * from '../sdk/errors.js';

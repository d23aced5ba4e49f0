/**
 * User codes (RFC 8628 §6.1): short, easy to read aloud and to type on a phone. Stored and
 * matched in a normalized form (upper case, no separators); shown with a dash.
 */
import { randomInt } from 'node:crypto';

export type UserCodeFormat = 'base20' | 'numeric';

export interface UserCodeScheme {
  readonly format: UserCodeFormat;
  /** A fresh random code, normalized. */
  generate(): string;
  /** What the user typed, normalized; `undefined` when it cannot be a code of this format. */
  normalize(input: string): string | undefined;
  /** The normalized code as shown to people, e.g. `BCDF-GHJK` or `123-456-789`. */
  display(normalized: string): string;
}

interface Shape {
  readonly alphabet: string;
  readonly length: number;
  readonly groupSize: number;
}

const shapes: Record<UserCodeFormat, Shape> = {
  // RFC 8628 §6.1: no vowels (no words), no digits (no 0/O, 1/I look-alikes); 20^8 ≈ 2^34.6.
  base20: { alphabet: 'BCDFGHJKLMNPQRSTVWXZ', length: 8, groupSize: 4 },
  // RFC 8628 §6.1: digits only, for devices with a numeric keypad; 10^9 ≈ 2^29.9.
  numeric: { alphabet: '0123456789', length: 9, groupSize: 3 },
};

/** Dashes and whitespace are ignored when matching (RFC 8628 §6.1). */
const separators = /[\s\-\u2010-\u2015]+/g;

export function userCodeScheme(format: UserCodeFormat): UserCodeScheme {
  const { alphabet, length, groupSize } = shapes[format];
  const valid = new RegExp(`^[${alphabet}]{${length}}$`);
  return {
    format,
    generate() {
      let code = '';
      // randomInt is uniform: no modulo bias towards the first letters.
      for (let i = 0; i < length; i++) code += alphabet[randomInt(alphabet.length)];
      return code;
    },
    normalize(input) {
      const code = input.replace(separators, '').toUpperCase();
      return valid.test(code) ? code : undefined;
    },
    display(normalized) {
      const groups: string[] = [];
      for (let i = 0; i < normalized.length; i += groupSize) groups.push(normalized.slice(i, i + groupSize));
      return groups.join('-');
    },
  };
}

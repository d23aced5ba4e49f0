/**
 * The SDK is a leaf: plugin authors import it, and it imports nothing of the service — only its
 * own modules and Node's built-ins. The host implements its contracts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const sdkDir = fileURLToPath(new URL('../../src/sdk/', import.meta.url));
const files = readdirSync(sdkDir).filter((f) => f.endsWith('.ts'));
const code = (source: string): string => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
const specifiers = (source: string): string[] => [...code(source).matchAll(/(?:import|export)[^'"]*?from\s+'([^']+)'|import\('([^']+)'\)/g)].map((m) => (m[1] ?? m[2])!);

describe('src/sdk', () => {
  it.each(files)('%s imports only the SDK itself and node: built-ins', (file) => {
    const outside = specifiers(readFileSync(sdkDir + file, 'utf8')).filter((s) => !(s.startsWith('./') && !s.includes('/', 2)) && !s.startsWith('node:'));
    expect(outside).toEqual([]);
  });
});

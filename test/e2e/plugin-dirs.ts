/**
 * Plugin dirs for tests. First-party plugins other than shared-secret are other issues' work,
 * so these tests load shared-secret alone (through a symlink in a temp dir) plus fixtures.
 */
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstPartyPlugins } from '../support/server.js';

/** `test/fixtures/plugins/<name>`: one plugin dir per case. */
export function fixturePluginDir(name: string): string {
  return fileURLToPath(new URL(`../fixtures/plugins/${name}`, import.meta.url));
}

export interface TempPluginDir {
  readonly dir: string;
  remove(): void;
}

/** A plugin dir holding only `plugins/shared-secret`. */
export function sharedSecretOnly(): TempPluginDir {
  const dir = mkdtempSync(join(tmpdir(), 'svc-plugins-'));
  symlinkSync(join(firstPartyPlugins, 'shared-secret'), join(dir, 'shared-secret'), 'dir');
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Strings that only appear in a response body when internals leak. */
export const leakPatterns: readonly RegExp[] = [/\n\s+at /, /\bat .+:\d+:\d+/, /Error:/, /node_modules/, /\/work\//, /\.ts\b/];

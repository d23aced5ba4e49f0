/** Builds the app from plugin folders that must stop start-up; returns the BootError it stopped with. */
import { Writable } from 'node:stream';
import { expect } from 'vitest';
import { createApp } from '../../src/app/create-app.js';
import { BootError } from '../../src/config/boot-error.js';
import { checkConfig } from '../../src/config/load.js';
import { systemClock } from '../../src/app/system-clock.js';
import { memoryStoreWithTestKeys } from './test-keys.js';

const quiet = new Writable({ write: (_chunk, _enc, done) => done() });

export function bootError(pluginDirs: string[], configDir: string): Promise<BootError> {
  return bootErrorFor({ store: 'memory', pluginDirs }, configDir);
}

/** The BootError that building the app from this (unchecked) config stops with. */
export async function bootErrorFor(raw: Record<string, unknown>, configDir: string): Promise<BootError> {
  // Exactly the plugin dirs the test names, unless it asks for the package's plugins.
  const config = checkConfig({ packagePlugins: [], ...raw }, configDir);
  // The test keys: a boot that stops at a plugin need not generate signing keys first.
  const store = await memoryStoreWithTestKeys(config, systemClock);
  const err: unknown = await createApp(config, { logDestination: quiet, ...(store ? { store } : {}) }).then(
    async (app) => {
      await app.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(err, 'start-up must stop').toBeInstanceOf(BootError);
  return err as BootError;
}

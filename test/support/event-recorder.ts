/**
 * The `event-recorder` fixture plugin (test/fixtures/event-sink-plugin/plugins): a drop-in sink
 * that appends every event it is handed to a JSON-lines file, read back here.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RaisedEvent, ServiceEventType } from '../../src/sdk/index.js';

/** The plugin dir holding `event-recorder` and `crashing-sinks`. */
export const eventSinkPlugins = fileURLToPath(new URL('../fixtures/event-sink-plugin/plugins', import.meta.url));

export interface EventRecording {
  /** `plugins` config for the recorder; `typedTypes` go to the second, typed sink. */
  readonly options: { file: string; typed: { file: string; types: readonly ServiceEventType[] } };
  /** Every event the all-types sink received so far. */
  all(): RaisedEvent[];
  /** Every event the typed sink received so far. */
  typed(): RaisedEvent[];
  /** The raw text of both files, for searching. */
  text(): string;
  /** Runs `action` and returns it with the events it raised (the all-types sink's). */
  during<T>(action: () => Promise<T>): Promise<{ result: T; events: RaisedEvent[] }>;
  remove(): void;
}

function readLines(file: string): RaisedEvent[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as RaisedEvent);
}

export function eventRecording(typedTypes: readonly ServiceEventType[] = ['token.issued']): EventRecording {
  const dir = mkdtempSync(join(tmpdir(), 'svc-events-'));
  const file = join(dir, 'events.jsonl');
  const typedFile = join(dir, 'typed.jsonl');
  const all = () => readLines(file);
  return {
    options: { file, typed: { file: typedFile, types: typedTypes } },
    all,
    typed: () => readLines(typedFile),
    text: () => [file, typedFile].map((f) => (existsSync(f) ? readFileSync(f, 'utf8') : '')).join(''),
    async during(action) {
      const before = all().length;
      const result = await action();
      return { result, events: all().slice(before) };
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

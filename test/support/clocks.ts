/** Clocks for servers under test: tests move time forward instead of sleeping. */
import type { Clock } from '../../src/sdk/contracts.js';

/** A clock that runs only when the test says so (`manualClock` in test/device/helpers.ts is the stopped one). */
export interface SkippingClock extends Clock {
  advance(seconds: number): void;
}

/**
 * Real time that the test moves forward: where a client library checks `iat`/`exp` against the
 * real clock or polls on its own timers, or other tests of the file share the server, so a
 * stopped clock would not do.
 */
export function realClockWithSkips(): SkippingClock {
  let skipped = 0;
  return { now: () => Date.now() + skipped, advance: (seconds) => void (skipped += seconds * 1000) };
}

/**
 * Vitest global setup of the integration projects: the compiled service the tests spawn as
 * `svc` (compiled-service.ts), built once before any test file runs.
 */
import { compileService } from './compiled-service.js';

export default function setup(): void {
  compileService();
}

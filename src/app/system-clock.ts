import type { Clock } from '../sdk/contracts.js';

export const systemClock: Clock = { now: () => Date.now() };

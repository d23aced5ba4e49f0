import { describe, expect, it } from 'vitest';
import { closestName, didYouMean } from '../../src/config/closest-name.js';

describe('closestName', () => {
  it('finds a name one edit in three characters away', () => {
    expect(closestName('delegaton', ['delegation', 'password'])).toBe('delegation');
    expect(closestName('--prot', ['--port', '--config'])).toBe('--port');
  });

  it('finds two neighbouring letters swapped, whatever the length', () => {
    expect(closestName('strat', ['start', 'init'])).toBe('start');
    expect(closestName('ab', ['ba'])).toBe('ba');
  });

  it('suggests nothing for another word', () => {
    expect(closestName('colour', ['clients', 'scopes'])).toBeUndefined();
    expect(closestName('sart', [])).toBeUndefined();
    expect(didYouMean('xyz', ['start'])).toBe('');
  });
});

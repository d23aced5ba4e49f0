import { describe, expect, it } from 'vitest';
import { turnGroups } from '../../src/store/sql/turn-groups.js';

describe('turnGroups', () => {
  it('sends the calls of one turn as groups of at most `max`, answering each caller with its own answer', async () => {
    const sent: string[][] = [];
    const groups = turnGroups<string, string>({ max: 3, send: async (items) => (sent.push([...items]), items.map((item) => item.toUpperCase())) });

    const answers = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((item) => groups.submit(item)));

    expect(answers).toEqual(['A', 'B', 'C', 'D', 'E']);
    expect(sent).toEqual([['a', 'b', 'c'], ['d', 'e']]);
  });

  it('starts another group at a repeated key, and keeps calls of later turns apart', async () => {
    const sent: string[][] = [];
    const groups = turnGroups<string, number>({ max: 10, keyOf: (item) => item, send: async (items) => (sent.push([...items]), items.map((_, i) => i)) });

    await Promise.all(['x', 'y', 'x', 'z'].map((item) => groups.submit(item)));
    await groups.submit('w');

    expect(sent).toEqual([['x', 'y'], ['x', 'z'], ['w']]);
  });

  it('rejects every caller of a group whose statement fails, thrown or rejected, and only them', async () => {
    let calls = 0;
    const groups = turnGroups<string, string>({
      max: 2,
      send: (items) => {
        calls++;
        if (calls === 1) throw new Error('connection lost');
        if (calls === 2) return Promise.reject(new Error('server closed'));
        return Promise.resolve(items);
      },
    });

    const outcomes = await Promise.allSettled(['a', 'b', 'c', 'd', 'e'].map((item) => groups.submit(item)));

    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual([
      'connection lost', 'connection lost', 'server closed', 'server closed', 'e',
    ]);
  });

  it('drain sends what waits at once and settles it', async () => {
    const groups = turnGroups<string, string>({ max: 5, send: (items) => new Promise((resolve) => setTimeout(() => resolve(items), 20)) });
    let answered = false;
    void groups.submit('late').then(() => (answered = true));

    await groups.drain();

    expect(answered).toBe(true);
  });
});

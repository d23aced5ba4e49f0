import { describe, expect, it } from 'vitest';
import { checkIfMatch, etagOf, requireIfMatch } from '../../src/admin/etag.js';
import { cursorOf, pageOf, pageOfList, pageQuery } from '../../src/admin/pagination.js';
import { AdminProblem } from '../../src/admin/problem.js';

const statusOf = (run: () => unknown): number | undefined => {
  try {
    run();
    return undefined;
  } catch (err) {
    return err instanceof AdminProblem ? err.status : -1;
  }
};

describe('ETag and If-Match', () => {
  it('tags the same representation alike and another one differently, as a strong tag', () => {
    expect(etagOf({ a: 1 })).toBe(etagOf({ a: 1 }));
    expect(etagOf({ a: 1 })).not.toBe(etagOf({ a: 2 }));
    expect(etagOf({ a: 1 })).toMatch(/^"[\w-]{27}"$/);
  });

  it('428 without If-Match, 412 for another or a weak tag, passes the current tag, one of a list, or *', () => {
    const tag = etagOf({ a: 1 });
    expect(statusOf(() => requireIfMatch(undefined))).toBe(428);
    expect(statusOf(() => requireIfMatch(' '))).toBe(428);
    expect(statusOf(() => checkIfMatch(etagOf({ a: 2 }), tag))).toBe(412);
    expect(statusOf(() => checkIfMatch(`W/${tag}`, tag))).toBe(412);
    expect(statusOf(() => checkIfMatch(tag, tag))).toBeUndefined();
    expect(statusOf(() => checkIfMatch(`"x", ${tag}`, tag))).toBeUndefined();
    expect(statusOf(() => checkIfMatch('*', tag))).toBeUndefined();
  });
});

describe('pages', () => {
  const items = ['c', 'a', 'e', 'b', 'd'];

  it('walks a list in order, limit items a page, each cursor the last key of its page, none after the last', () => {
    const first = pageOfList(items, (x) => x, pageOf({ limit: '2' }));
    expect(first).toEqual({ items: ['a', 'b'], next: cursorOf('b') });
    const second = pageOfList(items, (x) => x, pageOf({ limit: '2', cursor: first.next }));
    expect(second.items).toEqual(['c', 'd']);
    const last = pageOfList(items, (x) => x, pageOf({ limit: '2', cursor: second.next }));
    expect(last).toEqual({ items: ['e'], next: undefined });
    expect(pageOfList(items, (x) => x, pageOf({})).items).toHaveLength(5);
  });

  it('keeps its place when an item before the page goes away', () => {
    const first = pageOfList(items, (x) => x, pageOf({ limit: '2' }));
    expect(pageOfList(items.filter((x) => x !== 'a'), (x) => x, pageOf({ limit: '2', cursor: first.next })).items).toEqual(['c', 'd']);
  });

  it('refuses a limit out of 1 to 200, an unknown parameter, a cursor that is not one', () => {
    expect(pageQuery.safeParse({ limit: '0' }).success).toBe(false);
    expect(pageQuery.safeParse({ limit: '20x' }).success).toBe(false);
    expect(pageQuery.safeParse({ offset: '2' }).success).toBe(false);
    expect(pageQuery.safeParse({ cursor: 'a b' }).success).toBe(false);
    expect(statusOf(() => pageOf({ limit: '201' }))).toBe(400);
    expect(pageOf({ limit: '200' }).limit).toBe(200);
  });
});

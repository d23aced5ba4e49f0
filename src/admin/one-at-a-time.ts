/**
 * Changes to one resource, one after the other on this node: the `If-Match` comparison and the
 * write it guards run together, so two operators' updates through one node cannot both pass
 * the comparison. (Across nodes the store has no compare-and-set for these records; the window
 * is the few milliseconds between read and write.)
 */
export function oneAtATime(): <T>(key: string, change: () => Promise<T>) => Promise<T> {
  const queues = new Map<string, Promise<unknown>>();
  return (key, change) => {
    const turn = (queues.get(key) ?? Promise.resolve()).then(change, change);
    const settled = turn.then(() => undefined, () => undefined);
    queues.set(key, settled);
    void settled.then(() => {
      if (queues.get(key) === settled) queues.delete(key);
    });
    return turn;
  };
}

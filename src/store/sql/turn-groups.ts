/**
 * Collects the calls made in one turn of the event loop and hands them on as groups: one
 * statement per group instead of one per call (see postgres-grant-groups.ts for what it saves).
 * Each caller is settled with its own item's answer once its group's statement has run; a group
 * whose statement fails rejects every caller in it.
 */
export interface TurnGroups<I, O> {
  submit(item: I): Promise<O>;
  /** Sends what is waiting and settles what was sent; called before the connection pool closes. */
  drain(): Promise<void>;
}

export interface TurnGroupOptions<I, O> {
  /** Runs one group; answers in the order of `items`. */
  send(items: readonly I[]): Promise<readonly O[]>;
  /** Most items in one group; more in a turn make several groups. */
  readonly max: number;
  /** When given, an item whose key is already in the group starts another group. */
  keyOf?(item: I): string;
}

export function turnGroups<I, O>({ send, max, keyOf }: TurnGroupOptions<I, O>): TurnGroups<I, O> {
  let waiting: Array<Pending<I, O>> = [];
  const inFlight = new Set<Promise<void>>();

  function flush(): void {
    const calls = waiting;
    waiting = [];
    let group: Array<Pending<I, O>> = [];
    const keys = new Set<string>();
    for (const call of calls) {
      const key = keyOf?.(call.item);
      if (group.length === max || (key !== undefined && keys.has(key))) {
        run(group);
        group = [];
        keys.clear();
      }
      if (key !== undefined) keys.add(key);
      group.push(call);
    }
    if (group.length > 0) run(group);
  }

  function run(group: ReadonlyArray<Pending<I, O>>): void {
    let sent: Promise<readonly O[]>;
    try {
      sent = send(group.map((call) => call.item));
    } catch (error) {
      sent = Promise.reject(error);
    }
    const settled = sent.then(
      (answers) => group.forEach((call, index) => call.resolve(answers[index]!)),
      (error: unknown) => group.forEach((call) => call.reject(error)),
    );
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
  }

  return {
    submit: (item) =>
      new Promise<O>((resolve, reject) => {
        if (waiting.length === 0) setImmediate(flush);
        waiting.push({ item, resolve, reject });
      }),
    async drain() {
      flush();
      await Promise.allSettled([...inFlight]);
    },
  };
}

interface Pending<I, O> {
  readonly item: I;
  resolve(answer: O): void;
  reject(error: unknown): void;
}

import { getRelayed } from './task-reads.ts';
import { notify, type StoreState } from './task-store-state.ts';

/** What relays other processes' changes to the listeners. */
interface Relay {
  /** A notification's payload: `<instance> <seq> <task id>`. */
  onPayload(payload: string): void;
  /** The changes made while the feed was down: every task changed since then, fetched anew. */
  onReconnect(lostAt: number): void;
}

/** How much earlier than its drop the feed catches up from (clocks of replicas differ a little). */
const CATCH_UP_MARGIN_MS = 5_000;
/** At most this many tasks are relayed after a drop (the most recently changed). */
const CATCH_UP_LIMIT = 1_000;

/** How many events before a notified seq a task first heard of is fetched with. */
const FIRST_EVENTS = 20;

/**
 * Hands changes another process made to the listeners: the task as it is now, with its events
 * since the last change relayed (fetched in the same statement, so a follower here need not read
 * them; a first change of a task comes with its newest few, and a follower reads what it lacks).
 */
export function relay(state: StoreState): Relay {
  const delivered = new Map<string, number>();
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (id: string, seq: number) => {
    // One at a time, so the listeners hear of a task's steps in their order.
    queue = queue.then(async () => {
      const last = delivered.get(id);
      if ((last ?? 0) >= seq) return;
      const after = last ?? Math.max(0, seq - FIRST_EVENTS);
      const relayed = await getRelayed(state, id, after).catch(() => undefined);
      if (relayed === undefined) return;
      if (delivered.size >= 10_000) delivered.clear();
      delivered.set(id, relayed.task.seq);
      notify(state, relayed.task, relayed.events);
    });
  };
  return {
    onPayload(payload) {
      const [instance, seqText] = payload.split(' ', 2);
      if (instance === state.instance || seqText === undefined) return;
      const id = payload.slice((instance?.length ?? 0) + seqText.length + 2);
      // Another process stepped it: the row this store wrote last is out of date.
      state.known.forget(id);
      if (state.listeners.size > 0) enqueue(id, Number(seqText));
    },
    onReconnect(lostAt) {
      const since = new Date(lostAt - CATCH_UP_MARGIN_MS);
      state.pool
        .query<{ id: string; seq: number }>({
          ...state.sql.changedSince,
          values: [since, CATCH_UP_LIMIT],
        })
        .then(({ rows }) => {
          for (const { id, seq } of rows.reverse()) enqueue(id, seq);
        })
        .catch(() => undefined);
    },
  };
}

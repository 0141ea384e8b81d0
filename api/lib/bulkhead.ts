import pLimit from "p-limit";

/**
 * At most `concurrency` tasks of one kind run at once and at most `maxQueued` wait for a slot:
 * a slow kind of request (a dataset download holds several pooled connections for a while) can
 * then never take every connection of the pool from the fast ones.
 */
export interface Bulkhead {
  /** Runs `task` once a slot is free; rejects at once with `full()` when `maxQueued` tasks already wait. */
  run<T>(task: () => Promise<T>, full: () => Error): Promise<T>;
  readonly active: number;
  readonly queued: number;
}

export function createBulkhead({ concurrency, maxQueued }: { concurrency: number; maxQueued: number }): Bulkhead {
  const limit = pLimit(concurrency);
  return {
    run(task, full) {
      // p-limit counts a task as pending from the call on, so the sum is exact within one tick
      if (limit.activeCount + limit.pendingCount >= concurrency + maxQueued) return Promise.reject(full());
      return limit(task);
    },
    get active() {
      return limit.activeCount;
    },
    get queued() {
      return limit.pendingCount;
    },
  };
}

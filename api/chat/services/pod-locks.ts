import { Mutex } from "async-mutex";
import type pg from "pg";
import { withAdvisoryLock } from "./advisory-lock";

const LOCK_NAMESPACE = "chat:pod-claim:";

/**
 * Serialises work on one pod: an in-process mutex (so one replica queues its own requests
 * without holding database connections), then a PostgreSQL session advisory lock held on a
 * dedicated connection (so replicas sharing the database queue too). The lock goes with the
 * connection if the process dies.
 */
export class PodLocks {
  private readonly mutexes = new Map<string, { mutex: Mutex; users: number }>();

  constructor(private readonly pool: pg.Pool) {}

  async withLock<T>(podId: bigint, work: () => Promise<T>): Promise<T> {
    const key = podId.toString();
    let entry = this.mutexes.get(key);
    if (!entry) this.mutexes.set(key, (entry = { mutex: new Mutex(), users: 0 }));
    entry.users++;
    try {
      return await entry.mutex.runExclusive(() => withAdvisoryLock(this.pool, LOCK_NAMESPACE + key, work));
    } finally {
      entry.users--;
      if (entry.users === 0) this.mutexes.delete(key);
    }
  }
}

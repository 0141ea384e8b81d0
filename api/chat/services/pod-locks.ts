import { Mutex } from "async-mutex";
import type pg from "pg";
import { serviceUnavailable } from "../../http/errors";

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
      return await entry.mutex.runExclusive(() => this.withAdvisoryLock(key, work));
    } finally {
      entry.users--;
      if (entry.users === 0) this.mutexes.delete(key);
    }
  }

  private async withAdvisoryLock<T>(key: string, work: () => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch {
      throw serviceUnavailable("Database unavailable");
    }
    let released = false;
    try {
      await client.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [LOCK_NAMESPACE + key]);
    } catch (error) {
      client.release(error as Error);
      throw serviceUnavailable("Database unavailable");
    }
    try {
      return await work();
    } finally {
      try {
        await client.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [LOCK_NAMESPACE + key]);
      } catch (error) {
        // Destroy the connection so the server drops the lock with it.
        client.release(error as Error);
        released = true;
      }
      if (!released) client.release();
    }
  }
}

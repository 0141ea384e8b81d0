import type pg from "pg";
import { serviceUnavailable } from "../../http/errors";

/**
 * Runs `work` holding a PostgreSQL session advisory lock named `key`, on a connection of its own,
 * so replicas sharing the database take turns. If the unlock fails, the connection is destroyed
 * (the server then drops the lock with it) instead of going back to the pool still holding it.
 * A database that cannot be reached is 503.
 */
export async function withAdvisoryLock<T>(pool: pg.Pool, key: string, work: () => Promise<T>): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch {
    throw serviceUnavailable("Database unavailable");
  }
  try {
    await client.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", [key]);
  } catch (error) {
    client.release(error as Error);
    throw serviceUnavailable("Database unavailable");
  }
  let released = false;
  try {
    return await work();
  } finally {
    try {
      await client.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [key]);
    } catch (error) {
      client.release(error as Error);
      released = true;
    }
    if (!released) client.release();
  }
}

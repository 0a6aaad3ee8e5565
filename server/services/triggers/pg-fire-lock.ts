import type pg from "pg";
import type { FireLock } from "./scheduler";

/** The first key of the schedules' advisory locks (the second is the name's hash): "MODX" in ASCII. */
const SCHEDULE_LOCKS = 0x4d4f4458;

/**
 * A FireLock for web processes sharing one PostgreSQL database: a session advisory lock per schedule,
 * taken without waiting on a connection of its own and held for the fire. A process that dies mid-fire
 * loses its connection and with it the lock; the fire is still due in the row, and another process's
 * `rearm` fires it (with the same Idempotency-Key, so a run made before the death is not made twice).
 * Names whose hashes collide share a lock: one waits for the other's next sync (a few seconds).
 */
export function pgFireLock(pool: Pick<pg.Pool, "connect">): FireLock {
  return async (name, fire) => {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      const { rows } = await client.query<{ locked: boolean }>({
        name: "modex_schedule_fire_lock",
        text: "SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked",
        values: [SCHEDULE_LOCKS, name],
      });
      if (!rows[0]?.locked) return false;
      try {
        await fire();
      } finally {
        await client.query({ name: "modex_schedule_fire_unlock", text: "SELECT pg_advisory_unlock($1, hashtext($2))", values: [SCHEDULE_LOCKS, name] });
      }
      return true;
    } catch (error) {
      broken = error instanceof Error ? error : new Error(String(error));
      throw error;
    } finally {
      // A connection whose unlock failed is closed, not handed out holding the lock.
      client.release(broken);
    }
  };
}

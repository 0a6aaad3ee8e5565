/** Codes of the cluster layer's errors (see STYLE.md: one errors file per layer). */
export const CLUSTER_ERROR_CODES = {
  /** SQLSTATE raised by the fence trigger (migration 20261202000000_cluster_leases). */
  LEASE_LOST: "MX002",
  /** SQLSTATE lock_not_available: a row a control command locks NOWAIT is held by a worker's statement. */
  ROW_BUSY: "55P03",
} as const;

/**
 * True when a write was refused because this worker no longer holds the instance's lease: another worker
 * took it over (or the sweeper freed it). The run must end at once, without writing anything else.
 */
export function isLeaseLost(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === CLUSTER_ERROR_CODES.LEASE_LOST) return true;
  }
  return false;
}

/**
 * True when a control command's transaction gave way to a worker's statement on the instance's row
 * (ClusterControl.lockIn): it is rolled back and run again a moment later (`retryWhileBusy`).
 */
export function isRowBusy(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === CLUSTER_ERROR_CODES.ROW_BUSY) return true;
  }
  return false;
}

/** Runs the transaction `attempt` again while it gave way to a worker (isRowBusy), for up to `maxMs`. */
export async function retryWhileBusy<T>(attempt: () => Promise<T>, maxMs = 5_000): Promise<T> {
  const until = Date.now() + maxMs;
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    try {
      return await attempt();
    } catch (error) {
      if (!isRowBusy(error) || Date.now() >= until) throw error;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

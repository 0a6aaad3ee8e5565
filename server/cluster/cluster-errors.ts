/** Codes of the cluster layer's errors (see STYLE.md: one errors file per layer). */
export const CLUSTER_ERROR_CODES = {
  /** SQLSTATE raised by the fence trigger (migration 20261202000000_cluster_leases). */
  LEASE_LOST: "MX002",
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

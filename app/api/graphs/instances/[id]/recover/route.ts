import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/**
 * POST /api/graphs/instances/{id}/recover — RECOVER: re-runs a CRASHED instance from its ledger (for
 * MODEX_RECOVERY=off, or after fixing what made an automatic recovery fail); 409 for any other status.
 */
export const POST = restRoute({
  handle: ({ services, params }) => services.control.recover(params.id),
});

import { restRoute } from "@/server/api/rest";
import { hookInput } from "@/server/api/routers/triggers";

export const dynamic = "force-dynamic";

/** GET /api/triggers/hooks — every webhook, without secrets. */
export const GET = restRoute({ handle: ({ services }) => services.triggers.hooks.list() });

/** POST /api/triggers/hooks {name, spec, auth?, maxBodyBytes?, ratePerMinute?} — 201 with the secret (shown this once). */
export const POST = restRoute({ body: hookInput, status: 201, handle: ({ services, body }) => services.triggers.hooks.create(body) });

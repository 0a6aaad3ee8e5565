import { z } from "zod";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** PUT /api/extensions/{name} `{ "enabled": true|false }` — committed before the answer (the extension as it now is); 404 unknown. */
export const PUT = restRoute({
  body: z.object({ enabled: z.boolean() }),
  handle: ({ services, params, body }) => services.extensions.setEnabled(params.name, body.enabled),
});

import { z } from "zod";
import { restRoute } from "@/server/api/rest";
import { ServiceError } from "@/server/services/errors";

export const dynamic = "force-dynamic";

/**
 * POST /api/extensions/secret_masking/preview `{ "text": "…" }` — `{ masked, masks, patterns }`: the text as
 * the running secret_masking would mask it (its live patterns); nothing stored, logged or counted.
 * 404: not configured in extensions.yml (or another extension's name: only secret_masking previews);
 * 409: turned off; 413: text over 64 KiB.
 */
export const POST = restRoute({
  body: z.object({ text: z.string() }),
  handle: ({ services, params, body }) => {
    if (params.name !== "secret_masking") throw new ServiceError("NOT_FOUND", `extension ${params.name} has no preview (only secret_masking does)`);
    return services.extensions.previewSecretMasking(body.text);
  },
});

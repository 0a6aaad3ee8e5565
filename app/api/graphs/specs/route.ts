import { z } from "zod";
import { yamlBodyOf } from "@/server/api/http/yaml-body";
import { idempotencyKeyOf } from "@/server/api/idempotent-response";
import { json, restRoute } from "@/server/api/rest";
import { applySpec, specSaveStatus } from "@/server/services/spec-apply";

export const dynamic = "force-dynamic";

/** GET /api/graphs/specs?archived=exclude|only|include — the latest revision of every spec (archived ones on request). */
export const GET = restRoute({
  query: z.object({ archived: z.enum(["exclude", "only", "include"]).optional() }),
  handle: ({ services, query }) => services.specs.list(query),
});

/**
 * POST /api/graphs/specs — saves a spec, as the editor does. The body is the YAML itself, or JSON
 * `{ "yaml": "…" }`. 201 with the new revision; 200 with `unchanged: true` when the latest revision of
 * that name has the same content; 400 INVALID_SPEC with every issue located (path, line, column) when
 * it does not compile. A name that exists gets a new revision (its history keeps the older ones), as
 * the editor's "Save as its new version". With an Idempotency-Key header, a repeat answers the first.
 */
export const POST = restRoute({
  handle: async ({ services, request }) => {
    const yaml = await yamlBodyOf(request, "spec");
    if (typeof yaml !== "string") return yaml;
    const answer = await applySpec(services, yaml, idempotencyKeyOf(request));
    return json(answer.body, specSaveStatus(answer.body), answer.replayed ? { "idempotent-replayed": "true" } : {});
  },
});

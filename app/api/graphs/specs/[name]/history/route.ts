import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** GET /api/graphs/specs/{name}/history — every revision of the spec, newest first (without their YAML). */
export const GET = restRoute({
  handle: ({ services, params }) => services.specs.history(params.name),
});

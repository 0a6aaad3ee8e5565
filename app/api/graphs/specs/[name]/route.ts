import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** DELETE /api/graphs/specs/{name} — every revision of the spec; 409 while instances of it exist. Cannot be undone. */
export const DELETE = restRoute({
  handle: ({ services, params }) => services.specs.delete(params.name),
});

import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/**
 * GET /api/graphs/node-types — the node types a spec's `node_type` may name (the built-ins and `agent`):
 * `{ nodeTypes: [{ name, description, config: { fields, discriminator? } | null, configSchema }] }`.
 */
export const GET = restRoute({
  handle: ({ services }) => ({ nodeTypes: services.specs.nodeTypes() }),
});

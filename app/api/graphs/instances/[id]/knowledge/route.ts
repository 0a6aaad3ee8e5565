import { z } from "zod";
import { restRoute } from "@/server/api/rest";
import { KNOWLEDGE_PATTERNS } from "@/server/agent/knowledge/knowledge-patterns";
import { requireInstance } from "@/server/services/graph-orchestrator";

export const dynamic = "force-dynamic";

/**
 * GET /api/graphs/instances/{id}/knowledge?file= — the run's shared knowledge base, as the Knowledge tab
 * shows it: `{ enabled, files: [{ pattern, text, lines }] }` for the five files (`file`: that one only).
 * `enabled: false` when the app has no workspace for knowledge bases.
 */
export const GET = restRoute({
  query: z.object({ file: z.enum(KNOWLEDGE_PATTERNS).optional() }),
  handle: async ({ services, params, query }) => {
    requireInstance(await services.orchestrator.coordinator.instances.load(params.id), params.id);
    const kb = services.agentRuns.knowledge(params.id);
    return query.file ? { ...kb, files: kb.files.filter((f) => f.pattern === query.file) } : kb;
  },
});

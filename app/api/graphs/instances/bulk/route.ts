import { BulkInput } from "@/server/api/instance-bulk-args";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/**
 * POST /api/graphs/instances/bulk {action: "archive"|"unarchive"|"delete", ids? | filter?} — acts on the
 * named instances, or on every one the filter (GET /api/graphs/instances's query, as JSON, without
 * cursor and limit) matches, each as its single route does; a running one is not deleted. Answers
 * {action, matched, done, skipped: [{instanceId, reason, message}]}. Over 10,000 instances: 400, nothing done.
 */
export const POST = restRoute({
  body: BulkInput,
  handle: ({ services, body }) => services.bulk.apply(body),
});

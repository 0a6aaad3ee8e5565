import { z } from "zod";
import { INSTANCE_STATUSES } from "@/server/graph/persistence/records";
import { BULK_ACTIONS, BULK_CAP } from "@/server/services/instance-bulk";
import { ARCHIVED_FILTERS } from "@/server/services/instance-listing";

// A bulk action, as tRPC `instances.bulk` and REST `POST /api/graphs/instances/bulk` take it (both JSON),
// read through this one schema so the two cannot drift apart.

/** The Instances list's filter without its paging (see InstanceListQuery). */
export const BulkFilterInput = z.strictObject({
  status: z.enum(INSTANCE_STATUSES).optional(),
  waiting: z.boolean().optional(),
  graph: z.string().min(1).optional(),
  q: z.string().max(200).optional(),
  from: z.number().int().optional(),
  to: z.number().int().optional(),
  archived: z.enum(ARCHIVED_FILTERS).optional(),
});

export const BulkInput = z
  .strictObject({
    action: z.enum(BULK_ACTIONS),
    // One over the cap, so the service's error (with the count) answers a list that is too long.
    ids: z.array(z.string().min(1)).min(1).max(BULK_CAP + 1).optional(),
    filter: BulkFilterInput.optional(),
  })
  .refine((r) => (r.ids === undefined) !== (r.filter === undefined), { message: "give either ids or filter, not both or neither", path: ["ids"] });

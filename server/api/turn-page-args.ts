import { z } from "zod";
import { TURN_CURSOR_PATTERN } from "@/server/services/traces/turn-traces";

// A page of finished agent turns, as tRPC `traces.recent` and REST `GET /api/traces` ask for it. Both read
// it through this module so a page's limits and cursor rules are written once and cannot drift apart.

const cursor = z.string().regex(TURN_CURSOR_PATTERN, "a cursor from the previous page's nextCursor");
/** At most 200 turns a page, 50 unless asked. */
const limit = z.number().int().min(1).max(200);
const DEFAULT_LIMIT = 50;
const flag = z.enum(["0", "1"]).default("0");
const source = z.enum(["all", "chat", "node"]).default("all");

/** Both parse to the arguments of `TurnTraces.recent`. */
const toRecent = (a: { cursor?: string | null; limit: number; source: "all" | "chat" | "node"; errorsOnly: boolean; trainingOnly: boolean }) => ({
  cursor: a.cursor,
  limit: a.limit,
  filter: { source: a.source, errorsOnly: a.errorsOnly, trainingOnly: a.trainingOnly },
});

/** tRPC input: typed JSON. */
export const TurnPageInput = z
  .object({ cursor: cursor.nullish(), limit: limit.default(DEFAULT_LIMIT), source, errorsOnly: z.boolean().default(false), trainingOnly: z.boolean().default(false) })
  .transform(toRecent);

/** The query string: every value arrives as text, so the limit is coerced and the errors flag is 0 or 1. */
export const TurnPageQuery = z
  .object({ cursor: cursor.optional(), limit: z.coerce.number().pipe(limit).default(DEFAULT_LIMIT), source, errors: flag, training: flag })
  .transform(({ errors, training, ...q }) => toRecent({ ...q, errorsOnly: errors === "1", trainingOnly: training === "1" }));

/** `since=`: an ISO 8601 date or date-time, or epoch milliseconds; as epoch ms. */
const since = z
  .string()
  .transform((text, ctx) => {
    const at = /^\d{1,16}$/.test(text) ? Number(text) : Date.parse(text);
    if (Number.isNaN(at)) ctx.addIssue({ code: "custom", message: "an ISO 8601 date or date-time (2026-12-01, 2026-12-01T08:00:00Z) or epoch milliseconds" });
    return at;
  });

/** GET /api/traces/training.jsonl: `source=all|chat|node`, `since=`. */
export const TrainingExportQuery = z.object({ source, since: since.optional() });

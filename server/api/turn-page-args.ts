import { z } from "zod";
import { TURN_CURSOR_PATTERN } from "@/server/services/traces/turn-traces";

// A page of finished agent turns, as tRPC `traces.recent` and REST `GET /api/traces` ask for it. Both read
// it through this module so a page's limits and cursor rules are written once and cannot drift apart.

const cursor = z.string().regex(TURN_CURSOR_PATTERN, "a cursor from the previous page's nextCursor");
/** At most 200 turns a page, 50 unless asked. */
const limit = z.number().int().min(1).max(200);
const DEFAULT_LIMIT = 50;
const source = z.enum(["all", "chat", "node"]).default("all");

/** Both parse to the arguments of `TurnTraces.recent`. */
const toRecent = (a: { cursor?: string | null; limit: number; source: "all" | "chat" | "node"; errorsOnly: boolean }) => ({
  cursor: a.cursor,
  limit: a.limit,
  filter: { source: a.source, errorsOnly: a.errorsOnly },
});

/** tRPC input: typed JSON. */
export const TurnPageInput = z
  .object({ cursor: cursor.nullish(), limit: limit.default(DEFAULT_LIMIT), source, errorsOnly: z.boolean().default(false) })
  .transform(toRecent);

/** The query string: every value arrives as text, so the limit is coerced and the errors flag is 0 or 1. */
export const TurnPageQuery = z
  .object({ cursor: cursor.optional(), limit: z.coerce.number().pipe(limit).default(DEFAULT_LIMIT), source, errors: z.enum(["0", "1"]).default("0") })
  .transform(({ errors, ...q }) => toRecent({ ...q, errorsOnly: errors === "1" }));

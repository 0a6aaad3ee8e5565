import { restRoute } from "@/server/api/rest";
import { scheduleInput } from "@/server/api/routers/triggers";

export const dynamic = "force-dynamic";

/** GET /api/triggers/schedules — every schedule with its next fire times. */
export const GET = restRoute({ handle: ({ services }) => services.triggers.schedules.list() });

/** POST /api/triggers/schedules {name, spec, cron, timezone?, input?, overlap?, missed?, paused?} — create or replace (committed). */
export const POST = restRoute({ body: scheduleInput, handle: ({ services, body }) => services.triggers.schedules.save(body) });

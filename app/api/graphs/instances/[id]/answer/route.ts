import { z } from "zod";
import { restRoute } from "@/server/api/rest";

export const dynamic = "force-dynamic";

/** POST /api/graphs/instances/{id}/answer {value} — answers the HumanInputNode the instance waits on. */
export const POST = restRoute({
  body: z.object({ value: z.unknown() }).refine((b) => b.value !== undefined, { message: "value is required", path: ["value"] }),
  handle: ({ services, params, body, auth }) => services.control.answer(params.id, body.value, auth.via === "cookie" ? "session" : "token"),
});

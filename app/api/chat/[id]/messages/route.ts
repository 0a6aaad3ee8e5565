import { z } from "zod";
import { restRoute } from "@/server/api/rest";
import { BUSY_INPUT_MODES } from "@/server/services/chat/chat-event";
import { chatSseStream, endOfSentTurn, SSE_HEADERS, sseFrame } from "@/server/services/chat/chat-sse";

export const dynamic = "force-dynamic";

/**
 * POST /api/chat/{id}/messages {message, busyInput?} — sends a message (or a slash command) through the
 * input pipeline (`busyInput`: this message's busy-input mode instead of the agent's). JSON answer
 * (202): what was done (started, queued, steered, interrupted, command). With
 * `Accept: text/event-stream` (or ?stream=1) the answer is an SSE stream instead: `accepted` (that
 * answer), then the turn's events (`id` = seq) until the turn ends or waits for approval, then `end`.
 */
export const POST = restRoute({
  body: z.object({ message: z.string().trim().min(1).max(20_000), busyInput: z.enum(BUSY_INPUT_MODES).optional() }),
  query: z.object({ stream: z.enum(["0", "1"]).optional() }),
  handle: async ({ services, params, body, query, request }) => {
    const chat = services.chat;
    const wantsStream = query.stream === "1" || (request.headers.get("accept") ?? "").includes("text/event-stream");
    await chat.get(params.id); // NOT_FOUND as JSON, before any stream starts
    const afterSeq = await chat.currentSeq(params.id);
    const outcome = await chat.send({ sessionId: params.id, message: body.message, busyInput: body.busyInput });
    if (!wantsStream) return Response.json(outcome, { status: 202, headers: { "cache-control": "private, no-store" } });
    const accepted = sseFrame("accepted", outcome);
    if (outcome.handled === "command") {
      return new Response(accepted + sseFrame("end", { sessionId: params.id }), { headers: SSE_HEADERS });
    }
    const stream = chatSseStream({ chat, sessionId: params.id, afterSeq, prefix: [accepted], until: endOfSentTurn(outcome, body.message), signal: request.signal });
    return new Response(stream, { headers: SSE_HEADERS });
  },
});

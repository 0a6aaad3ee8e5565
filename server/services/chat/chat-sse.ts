import { chatEventStream, type ChatEvent, type ChatService, type SendOutcome } from "../chat-service";

/** Server-Sent Events framing: `id` is the event's seq, so a client resumes with `after=<last id>`. */
export function sseFrame(event: string, data: unknown, id?: number): string {
  return `${id === undefined ? "" : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

const KEEPALIVE_MS = 15_000;
const ENDS_TURN = new Set<ChatEvent["type"]>(["turn_completed", "turn_failed", "approval_requested"]);

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "private, no-store, no-transform",
  connection: "keep-alive",
  // Proxies (nginx) must not buffer a token stream.
  "x-accel-buffering": "no",
} as const;

/**
 * A chat's events as an SSE body: those after `afterSeq`, then live, until `until` says the last one
 * was the end (or the client goes away). `prefix` frames go first (the `accepted` answer of a send).
 */
export function chatSseStream(args: {
  chat: ChatService;
  sessionId: string;
  afterSeq: number;
  prefix?: string[];
  until?: (event: ChatEvent) => boolean;
  signal: AbortSignal;
}): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const abort = new AbortController();
  const onAbort = () => abort.abort();
  args.signal.addEventListener("abort", onAbort, { once: true });
  let keepalive: ReturnType<typeof setInterval> | undefined;
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      // A first byte at once: servers send the headers with the first chunk, and a client waits for them.
      controller.enqueue(encoder.encode(": stream open\n\n"));
      for (const frame of args.prefix ?? []) controller.enqueue(encoder.encode(frame));
      keepalive = setInterval(() => controller.enqueue(encoder.encode(": keepalive\n\n")), KEEPALIVE_MS);
      try {
        let reached = false;
        for await (const event of chatEventStream(args.chat, args.sessionId, args.afterSeq, abort.signal)) {
          controller.enqueue(encoder.encode(sseFrame(event.type, event, event.seq)));
          if ((reached = args.until?.(event) ?? false)) break;
        }
        // Neither its end nor the client's leaving: the chat was deleted, and nothing more will come.
        if (!reached && !abort.signal.aborted) {
          controller.enqueue(encoder.encode(sseFrame("error", { code: "NOT_FOUND", message: `chat ${args.sessionId} was deleted` })));
          return;
        }
        controller.enqueue(encoder.encode(sseFrame("end", { sessionId: args.sessionId })));
      } catch (error) {
        if (!abort.signal.aborted) controller.enqueue(encoder.encode(sseFrame("error", { message: error instanceof Error ? error.message : String(error) })));
      } finally {
        clearInterval(keepalive);
        args.signal.removeEventListener("abort", onAbort);
        abort.abort();
        try {
          controller.close();
        } catch {
          // the client went away first
        }
      }
    },
    cancel() {
      clearInterval(keepalive);
      abort.abort();
    },
  });
}

/**
 * Where a send's stream ends: at the end of the turn the message started or steered, or, for a message
 * queued (QUEUE, INTERRUPT), at the end of the turn it starts later (`queued_started` with its text).
 */
export function endOfSentTurn(outcome: SendOutcome, message: string): (event: ChatEvent) => boolean {
  let target: string | null = outcome.handled === "started" || outcome.handled === "steered" ? outcome.turnId : null;
  const text = message.trim();
  return (event) => {
    if (target === null && event.type === "queued_started" && event.text === text) target = event.turnId;
    return target !== null && event.turnId === target && ENDS_TURN.has(event.type);
  };
}

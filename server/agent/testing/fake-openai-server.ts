import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
}

/** What the fake server answers one request with. */
export type FakeReply =
  | { kind: "sse"; chunks: unknown[]; done?: boolean; hold?: boolean }
  | { kind: "error"; status: number; body: unknown };

export interface FakeOpenAIServer extends AsyncDisposable {
  /** The base URL to give the SDK (ends in /v1). */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * A local chat-completions server on 127.0.0.1 speaking the real streaming protocol: `text/event-stream`,
 * one `data: <chunk json>` event per chunk, then `data: [DONE]`. `hold` keeps the connection open after the
 * chunks (a stream that is still going).
 */
export async function startFakeOpenAIServer(reply: (body: Record<string, unknown>, index: number) => FakeReply): Promise<FakeOpenAIServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    void handle(req, res);
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw: Buffer[] = [];
    for await (const part of req) raw.push(part as Buffer);
    const body = JSON.parse(Buffer.concat(raw).toString("utf8") || "{}") as Record<string, unknown>;
    requests.push({ path: req.url ?? "", headers: req.headers, body });
    const answer = reply(body, requests.length - 1);
    if (answer.kind === "error") {
      res.writeHead(answer.status, { "content-type": "application/json" });
      res.end(JSON.stringify(answer.body));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    for (const chunk of answer.chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    if (answer.hold) return;
    if (answer.done ?? true) res.write("data: [DONE]\n\n");
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const close = async (): Promise<void> => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { url: `http://127.0.0.1:${port}/v1`, requests, close, [Symbol.asyncDispose]: close };
}

/** A chat.completion.chunk with one choice. */
export function chunk(delta: Record<string, unknown>, finishReason: string | null = null, extra: Record<string, unknown> = {}): unknown {
  return {
    id: "chatcmpl-test",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "test-model",
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
    ...extra,
  };
}

/** The final usage chunk a server sends under stream_options.include_usage (no choices). */
export function usageChunk(usage: Record<string, unknown>): unknown {
  return { id: "chatcmpl-test", object: "chat.completion.chunk", created: 1_700_000_000, model: "test-model", choices: [], usage };
}

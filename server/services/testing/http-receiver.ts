import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A real HTTP server on 127.0.0.1 that records every request and answers with the next of `statuses`
 * (the last one repeated; 200 when none). Disposable: `await using r = await httpReceiver()`.
 */
export class HttpReceiver implements AsyncDisposable {
  readonly received: Received[] = [];
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(statuses: number[] = [200]): Promise<HttpReceiver> {
    const queue = [...statuses];
    let receiver: HttpReceiver | null = null;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        receiver!.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
        res.statusCode = (queue.length > 1 ? queue.shift() : queue[0]) ?? 200;
        res.end("ok");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    receiver = new HttpReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
    return receiver;
  }

  /** Resolves once `count` requests arrived (or rejects after `timeoutMs`). */
  async waitFor(count: number, timeoutMs = 8_000): Promise<Received[]> {
    const end = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > end) throw new Error(`${this.received.length} of ${count} requests arrived in ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.received;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

export const httpReceiver = (statuses?: number[]) => HttpReceiver.start(statuses);

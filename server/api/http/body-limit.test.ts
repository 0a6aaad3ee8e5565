import { describe, expect, it } from "vitest";
import { BodyTooLargeError, formatBytes, readBodyText } from "./body-limit";

/** A request whose body streams `chunks` pieces of `size` bytes, counting how many were pulled. */
function streamingRequest(size: number, chunks: number, headers: Record<string, string> = {}) {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === chunks) return controller.close();
      pulled++;
      controller.enqueue(new Uint8Array(size).fill(0x61));
    },
  });
  const request = new Request("http://127.0.0.1/x", { method: "POST", body, headers, duplex: "half" } as RequestInit);
  return { request, pulled: () => pulled };
}

describe("readBodyText", () => {
  it("returns a body within the limit as text", async () => {
    const request = new Request("http://127.0.0.1/x", { method: "POST", body: '{"é":1}' });
    expect(await readBodyText(request, 1024)).toBe('{"é":1}');
  });

  it("refuses a declared Content-Length over the limit without reading a byte", async () => {
    const { request, pulled } = streamingRequest(1024, 50, { "content-length": String(50 * 1024 * 1024) });
    await expect(readBodyText(request, 1024 * 1024)).rejects.toBeInstanceOf(BodyTooLargeError);
    expect(pulled()).toBeLessThanOrEqual(1); // the stream itself pulls one chunk ahead
  });

  it("stops reading a streamed body as soon as it passes the limit", async () => {
    const { request, pulled } = streamingRequest(64 * 1024, 800); // 50 MiB if read to the end
    await expect(readBodyText(request, 1024 * 1024)).rejects.toThrow("larger than 1 MiB");
    expect(pulled()).toBeLessThanOrEqual(18);
  });

  it("names limits in readable units", () => {
    expect(formatBytes(1024 * 1024)).toBe("1 MiB");
    expect(formatBytes(5 * 1024 * 1024)).toBe("5 MiB");
    expect(formatBytes(1536)).toBe("1.5 KiB");
    expect(formatBytes(100)).toBe("100 bytes");
  });
});

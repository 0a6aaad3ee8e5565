/**
 * Reading a request body with a ceiling. A body larger than the limit is refused before it is read
 * when it says so (Content-Length), and otherwise as soon as the count passes the limit while it
 * streams in (chunked uploads, or a Content-Length that lies): a 50 MB upload costs at most the limit
 * in memory and time, never the whole upload.
 */

/** Thrown by readBodyText; callers turn it into a 413 in their own protocol (REST or tRPC). */
export class BodyTooLargeError extends Error {
  readonly code = "PAYLOAD_TOO_LARGE";
  /** `setting`: the variable that sets the limit, named in the message so the refused know what to change. */
  constructor(readonly limitBytes: number, setting?: string) {
    super(`the request body is larger than ${formatBytes(limitBytes)}${setting ? ` (${setting})` : ""}`);
    this.name = "BodyTooLargeError";
  }
}

export const isBodyTooLarge = (e: unknown): e is BodyTooLargeError =>
  typeof e === "object" && e !== null && (e as { code?: unknown }).code === "PAYLOAD_TOO_LARGE";

/** The body as UTF-8 text, or BodyTooLargeError (naming `setting`) once it passes `limitBytes`. */
export async function readBodyText(request: Request, limitBytes: number, setting?: string): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limitBytes) throw new BodyTooLargeError(limitBytes, setting);
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      // Stop the upload here: the rest is never buffered.
      await reader.cancel().catch(() => undefined);
      throw new BodyTooLargeError(limitBytes, setting);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total).toString("utf8");
}

/** 1048576 → "1 MiB", 1536 → "1.5 KiB": for messages that name the limit. */
export function formatBytes(bytes: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}

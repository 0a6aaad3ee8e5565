import type { AgentNodeDelta } from "@/server/agent/graph-node/agent-node";
import type { LiveDelta } from "@/server/services/agents/agent-runs";

export const AGENT_LIVE_CHANNEL = "modex_agent_live";

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more (the default build); this leaves room. */
export const MAX_PAYLOAD_BYTES = 7_800;

/** One notification on `modex_agent_live`: a sender's deltas, in the order its agent nodes streamed them. */
export interface AgentLiveBatch {
  /** The sending relay (a process that sends and listens skips its own). */
  from: string;
  /** Grows by one per notification of a sender: PostgreSQL folds identical payloads of one transaction into one. */
  seq: number;
  /** A `whole` one is a call's text so far (AgentLiveSender.resync): it replaces what a listener kept. */
  deltas: LiveDelta[];
}

/** Whether `b` continues `a`: the same model call's same channel (its text may be appended; a whole text replaces, never continues). */
function continues(a: LiveDelta, b: LiveDelta): boolean {
  return (
    !b.whole &&
    a.channel === b.channel &&
    a.channel !== "end" &&
    a.instanceId === b.instanceId &&
    a.invocationId === b.invocationId &&
    a.turnId === b.turnId &&
    a.attempt === b.attempt &&
    a.iteration === b.iteration &&
    a.node === b.node
  );
}

/**
 * Appends `delta` to a buffer of deltas to relay, merged into the last one when it continues it: a
 * model streams a few characters a delta, and each delta's ids weigh ~200 bytes. A buffer holds the
 * text streamed meanwhile, not one entry per token. Mutates `buffer` (it is the sender's own).
 */
export function appendDelta(buffer: LiveDelta[], delta: LiveDelta): void {
  const last = buffer.at(-1);
  if (last && continues(last, delta)) buffer[buffer.length - 1] = { ...last, text: last.text + delta.text };
  else buffer.push(delta);
}

const bytes = (s: string) => Buffer.byteLength(s, "utf8");

/**
 * Splits a delta whose JSON is over `max` bytes into pieces of its text (by code points) that each fit.
 * Of a `whole` one only the first piece is whole: the others continue it.
 */
function fitting(delta: LiveDelta, max: number): LiveDelta[] {
  if (bytes(JSON.stringify(delta)) <= max) return [delta];
  const chars = Array.from(delta.text);
  if (chars.length <= 1) return []; // its ids alone do not fit: nothing sensible to send
  const half = Math.ceil(chars.length / 2);
  const { whole: _whole, ...rest } = delta;
  return [...fitting({ ...delta, text: chars.slice(0, half).join("") }, max), ...fitting({ ...rest, text: chars.slice(half).join("") }, max)];
}

/**
 * The payloads that relay `deltas`, in order, each under `maxBytes` (UTF-8): as many deltas in one as
 * fit, a text too long for one payload split over several. `seq` numbers the first; each next gets the
 * next number.
 */
export function packBatches(args: { from: string; seq: number; deltas: LiveDelta[]; maxBytes?: number }): string[] {
  const max = args.maxBytes ?? MAX_PAYLOAD_BYTES;
  let seq = args.seq;
  const envelope = (parts: string[]) => `{"from":${JSON.stringify(args.from)},"seq":${seq++},"deltas":[${parts.join(",")}]}`;
  // What the envelope around the deltas costs, with a sequence number of any length.
  const overhead = bytes(envelope([])) + 16;
  seq = args.seq;
  const payloads: string[] = [];
  let parts: string[] = [];
  let size = overhead;
  for (const delta of args.deltas) {
    for (const piece of fitting(delta, max - overhead)) {
      const json = JSON.stringify(piece);
      const grown = size + bytes(json) + 1;
      if (parts.length > 0 && grown > max) {
        payloads.push(envelope(parts));
        parts = [];
        size = overhead;
      }
      parts.push(json);
      size += bytes(json) + 1;
    }
  }
  if (parts.length > 0) payloads.push(envelope(parts));
  return payloads;
}

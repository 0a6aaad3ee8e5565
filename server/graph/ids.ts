import { randomBytes } from "node:crypto";

const PREFIX = "node_";
const HEX = "0123456789abcdef";
const ALPHANUM = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/**
 * Random bytes for node ids, drawn in batches: a `randomBytes` call per id made a Buffer and its
 * backing store per node, most of the garbage of compiling a 10,000-node graph.
 */
const RANDOM_BATCH = 14 * 256;
let random = Buffer.alloc(0);
let randomAt = 0;
/** The id being built, as latin1 bytes: one flat string comes out of it, no parts or arrays. */
const scratch = Buffer.from(`${PREFIX}${"0".repeat(26)}`, "latin1");

/** `node_` + 12 hex timestamp digits + 14 random alphanumerics: sortable by creation time. */
export function newNodeId(now = Date.now()): string {
  if (randomAt + 14 > random.length) {
    random = randomBytes(RANDOM_BATCH);
    randomAt = 0;
  }
  for (let i = 0; i < 12; i++) scratch[5 + i] = HEX.charCodeAt(Math.floor(now / 16 ** (11 - i)) % 16);
  for (let i = 0; i < 14; i++) scratch[17 + i] = ALPHANUM.charCodeAt(random[randomAt++] % ALPHANUM.length);
  return scratch.toString("latin1");
}

export const NODE_ID_PATTERN = /^node_[0-9a-f]{12}[0-9A-Za-z]{14}$/;

// Snowflake: 41 bits of ms since the epoch below, 10 bits of worker, 12 bits of sequence.
// Built with Number arithmetic in two decimal halves: BigInt costs ~3× more on the deliver hot path.
const EPOCH = 1_704_067_200_000; // 2024-01-01T00:00:00Z
// The worker bits are random per process, not its pid: processes of a cluster on several hosts (each
// container's server is often PID 1) made the same ids in the same millisecond, and one's insert failed.
const WORKER = randomBytes(2).readUInt16BE(0) & 0x3ff;
const SHIFT = 4_194_304; // 2 ** 22
const HALF = 1_000_000;
let lastMs = 0;
let seq = 0;
let prefixHigh = 0;
let prefixLow = 0;

/**
 * A 64-bit Snowflake id as a decimal string; strictly increasing within a process. `now` lets a
 * caller that also stamps the time share one clock read (a call into the runtime per row).
 */
export function newSnowflake(now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    seq = 0;
    setPrefix(now);
  } else if (++seq > 0xfff) {
    // Sequence exhausted within one millisecond: borrow the next millisecond.
    seq = 0;
    setPrefix(++lastMs);
  }
  const low = prefixLow + WORKER * 4096 + seq;
  const high = prefixHigh + Math.floor(low / HALF);
  const rest = low % HALF;
  if (high !== headOf) setHead(high);
  if (head.length !== 12) return high === 0 ? String(rest) : `${high}${String(rest).padStart(6, "0")}`;
  return flat18(rest);
}

/** Char codes of `headOf`'s decimal digits: the high half of the ids made in this millisecond. */
let head: number[] = [];
let headOf = -1;

function setHead(high: number): void {
  headOf = high;
  const digits = String(high);
  head.length = digits.length;
  for (let i = 0; i < digits.length; i++) head[i] = digits.charCodeAt(i);
}

/**
 * The 12 head digits and `rest` padded to 6, as one flat string (ids made from late 2024 to mid-2031
 * have 18 digits; others take the template). The template keeps a rope over two strings per id,
 * three objects and ~72 bytes where this keeps one of 40, and every deliver row in flight holds its
 * id: a 10,000-branch fan-out holds up to 20,000.
 */
function flat18(rest: number): string {
  const h = head;
  return String.fromCharCode(
    h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9], h[10], h[11],
    48 + Math.floor(rest / 100_000),
    48 + (Math.floor(rest / 10_000) % 10),
    48 + (Math.floor(rest / 1_000) % 10),
    48 + (Math.floor(rest / 100) % 10),
    48 + (Math.floor(rest / 10) % 10),
    48 + (rest % 10),
  );
}

// value = (t * 2^22) split as prefixHigh * 10^6 + prefixLow, each half exact in a double.
function setPrefix(ms: number): void {
  const t = ms - EPOCH;
  const hi = Math.floor(t / HALF);
  const lo = t % HALF;
  const low = lo * SHIFT;
  prefixHigh = hi * SHIFT + Math.floor(low / HALF);
  prefixLow = low % HALF;
}

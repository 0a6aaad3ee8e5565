/** Rows per chunk: 2^10. */
const SHIFT = 10;
const CHUNK = 1 << SHIFT;
const MASK = CHUNK - 1;

/**
 * The numeric fields of an in-memory store's rows (numbered from 0, added in order): per row,
 * `intsPerRow` 32-bit integers, `timesPerRow` doubles (times in ms, NaN for null) and one byte (a
 * status), in chunks of 1,024 rows.
 *
 * The first chunk is plain arrays, the others typed arrays. Typed arrays take half the bytes or less
 * (4 per integer and 1 per byte, where an array element takes 8), but they live in malloc'd memory:
 * making one costs ~1.5 us, ten times a small array, and a store made per run (as most are, and
 * most stay small) would pay it several times over. A store past its first chunk has run a thousand
 * node executions, next to which three more arrays cost nothing, and may be one kept for long (a
 * shared store) whose rows are what counts. Chunks rather than one growing array: an array copied into
 * ever larger ones goes past glibc's 128 KiB mmap threshold, and freeing one raises that threshold
 * (and the trim threshold with it) for the rest of the process, which then keeps freed memory:
 * after a 300-run shared store, the engine bench's process sat ~4 MiB higher in every later
 * scenario. A chunk's largest array (1,024 rows of 6 integers) is 24 KiB.
 */
export class RowColumns {
  // The first chunk apart from the others, so every access site sees one kind of array: sites that
  // saw both made the engine bench's two-node loop ~15% slower per node.
  private readonly firstInts: number[] = [];
  private readonly firstTimes: number[] = [];
  private readonly firstBytes: number[] = [];
  private readonly ints: Int32Array[] = [];
  private readonly times: Float64Array[] = [];
  private readonly bytes: Uint8Array[] = [];

  constructor(
    private readonly intsPerRow: number,
    private readonly timesPerRow: number,
  ) {}

  /**
   * Makes room for row `at`: rows are added in order, each once, and a new row's fields are set in
   * order (the first chunk's arrays grow as they are written).
   */
  add(at: number): void {
    if (at < CHUNK || (at & MASK) !== 0) return;
    this.ints.push(new Int32Array(CHUNK * this.intsPerRow));
    this.times.push(new Float64Array(CHUNK * this.timesPerRow));
    this.bytes.push(new Uint8Array(CHUNK));
  }

  int(at: number, field: number): number {
    if (at < CHUNK) return this.firstInts[at * this.intsPerRow + field];
    return this.ints[(at >> SHIFT) - 1][(at & MASK) * this.intsPerRow + field];
  }

  setInt(at: number, field: number, value: number): void {
    if (at < CHUNK) this.firstInts[at * this.intsPerRow + field] = value;
    else this.ints[(at >> SHIFT) - 1][(at & MASK) * this.intsPerRow + field] = value;
  }

  time(at: number, field: number): number {
    if (at < CHUNK) return this.firstTimes[at * this.timesPerRow + field];
    return this.times[(at >> SHIFT) - 1][(at & MASK) * this.timesPerRow + field];
  }

  setTime(at: number, field: number, value: number): void {
    if (at < CHUNK) this.firstTimes[at * this.timesPerRow + field] = value;
    else this.times[(at >> SHIFT) - 1][(at & MASK) * this.timesPerRow + field] = value;
  }

  byte(at: number): number {
    return at < CHUNK ? this.firstBytes[at] : this.bytes[(at >> SHIFT) - 1][at & MASK];
  }

  setByte(at: number, value: number): void {
    if (at < CHUNK) this.firstBytes[at] = value;
    else this.bytes[(at >> SHIFT) - 1][at & MASK] = value;
  }
}

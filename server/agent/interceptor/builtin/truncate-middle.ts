export interface TruncateOptions {
  maxChars: number;
  /** Share of the kept characters taken from the start; the rest comes from the end. */
  headRatio: number;
  /** The elision marker for `elided` removed characters. */
  marker: (elided: number) => string;
}

/**
 * Keeps head + marker + tail within `maxChars` (marker included). Content already within the limit is
 * returned as is.
 */
export function truncateMiddle(content: string, options: TruncateOptions): string {
  if (content.length <= options.maxChars) return content;
  // The marker's length depends on the count it prints; size it for the worst case (all elided).
  const markerBudget = options.marker(content.length).length;
  const keep = Math.max(0, options.maxChars - markerBudget);
  const head = Math.floor(keep * options.headRatio);
  const tail = keep - head;
  const elided = content.length - head - tail;
  return content.slice(0, head) + options.marker(elided) + (tail > 0 ? content.slice(content.length - tail) : "");
}

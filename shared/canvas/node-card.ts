import type { NodeRunState } from "@/shared/canvas/node-state";
import { NODE_STATE_LABEL } from "@/shared/canvas/node-state";

/**
 * The size and text lines of a declared node's card, from its content: the name (Inter 13 px
 * semibold), the node type (monospace 11 px) and, on a run's canvas, a state line (Inter 11 px). Pure
 * arithmetic on a table of Inter's advance widths, so the server (which lays instances out with ELK
 * before the page is sent) and the browser get the same size, and the layout is of the cards as drawn.
 *
 * Widths are over-estimated a little (no kerning, a margin), so text never overflows the width given
 * to it. A card grows from MIN_WIDTH to MAX_WIDTH with its name; a longer name wraps (after `_`, `-`,
 * `.` or `/`, or between camelCase words, where it can) onto at most NAME_MAX_LINES lines (the card grows taller), and only beyond
 * that is it shortened with an ellipsis (the card's tooltip has it whole).
 */

export const MIN_WIDTH = 160;
export const MAX_WIDTH = 240;
export const NAME_MAX_LINES = 3;

/** Horizontal padding (12 px a side) and the 1 px border. */
const INSET_X = 2 * 12 + 2;
/** The state dot and its gap before the name (run canvas). */
const DOT = 8 + 8;
/** Vertical padding and border, and the line heights (graph-node.tsx uses the same). */
const INSET_Y = 2 * 7 + 2;
export const NAME_LINE = 18;
export const SMALL_LINE = 16;
const LINE_GAP = 2;

// Inter's advance widths in thousandths of an em, for ' ' (32) to '~' (126), at weights 600 and 400
// (measured in Chromium with the app's own Inter file: canvas measureText at 100 px).
const INTER_600 = [
  252, 321, 523, 644, 650, 1004, 663, 326, 373, 373, 540, 673, 319, 465, 319, 379, 660, 423, 623, 636, 666, 612, 640, 576, 640, 640, 319, 329, 673, 673, 673, 543, 999,
  728, 659, 737, 722, 605, 588, 749, 746, 277, 580, 703, 565, 922, 759, 769, 645, 773, 652, 650, 660, 736, 728, 1020, 720, 713, 652, 373, 379, 373, 481, 469, 351, 574,
  624, 583, 624, 591, 389, 625, 612, 262, 262, 569, 262, 900, 612, 609, 624, 624, 397, 549, 353, 612, 587, 839, 569, 588, 566, 455, 359, 455, 673,
];
const INTER_400 = [
  281, 288, 466, 633, 642, 982, 644, 300, 365, 365, 501, 662, 288, 460, 288, 360, 631, 407, 610, 618, 646, 593, 620, 566, 619, 620, 288, 302, 662, 662, 662, 511, 966,
  690, 654, 730, 722, 601, 590, 746, 743, 269, 571, 672, 565, 903, 753, 765, 639, 765, 644, 642, 646, 744, 690, 985, 682, 679, 629, 365, 360, 365, 471, 456, 323, 562,
  612, 571, 612, 583, 370, 613, 591, 242, 242, 549, 242, 876, 591, 600, 612, 612, 376, 528, 327, 591, 562, 818, 546, 562, 552, 426, 333, 426, 662,
];
/** Monospace fonts differ per system (SF Mono, Menlo, DejaVu Sans Mono, Consolas): 0.6 em or less. */
const MONO = 620;
/** Anything outside ASCII: as wide as a full-width glyph. */
const WIDE = 1000;
const MARGIN = 1.04;

function textWidth(text: string, table: readonly number[], px: number): number {
  let em = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    em += code >= 32 && code <= 126 ? table[code - 32] : WIDE;
  }
  return Math.ceil(((em * px) / 1000) * MARGIN) + 1;
}

export const nameWidth = (text: string): number => textWidth(text, INTER_600, 13);
export const smallTextWidth = (text: string): number => textWidth(text, INTER_400, 11);
export const monoWidth = (text: string): number => Math.ceil((text.length * MONO * 11) / 1000) + 1;

/**
 * The longest state line a run's card must hold without cutting: the longest state label with a
 * caption (`3 runs`, a subgraph's `2/3 inner`). Longer captions are cut with an ellipsis (the card's
 * tooltip has the whole line).
 */
const STATE_RESERVE = smallTextWidth(`${NODE_STATE_LABEL.waiting} · 99 runs`);

export interface NodeCard {
  readonly width: number;
  readonly height: number;
  /** The name as drawn, one entry per line. */
  readonly nameLines: readonly string[];
  /** Whether the card has a state line (the instance canvas). */
  readonly stateLine: boolean;
}

/** Where a name may break: after `_`, `-`, `.`, `/`, `:` or a space, and between camelCase words. */
const nameParts = (name: string): string[] => name.split(/(?<=[_\-./:\s])|(?<=[a-z0-9])(?=[A-Z])/u);

/**
 * The name's lines, each no wider than `max`: as few as fit, then balanced (the narrowest width needing
 * no more lines, never narrower than the name's widest part), so a card is not wide for one long line
 * above a short one. More than NAME_MAX_LINES lines: the last one kept ends in an ellipsis.
 */
function nameLinesOf(name: string, max: number): string[] {
  if (nameWidth(name) <= max) return [name];
  const lines = breakName(name, max);
  if (lines.length > NAME_MAX_LINES) {
    const kept = lines.slice(0, NAME_MAX_LINES);
    let last = kept[NAME_MAX_LINES - 1];
    while (last.length > 0 && nameWidth(`${last}…`) > max) last = last.slice(0, -1);
    kept[NAME_MAX_LINES - 1] = `${last}…`;
    return kept;
  }
  let lo = Math.min(max, Math.max(Math.ceil(nameWidth(name) / lines.length), ...nameParts(name).map(nameWidth)));
  let hi = max;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (breakName(name, mid).length <= lines.length) hi = mid;
    else lo = mid + 1;
  }
  return breakName(name, lo);
}

/** Breaks a name into lines no wider than `max`, filling each: after a separator or between camelCase words when one fits, else anywhere. */
function breakName(name: string, max: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const part of nameParts(name)) {
    if (nameWidth(line + part) <= max) {
      line += part;
      continue;
    }
    if (line) lines.push(line);
    line = "";
    // A part wider than a line by itself: cut it where the line is full.
    let rest = part;
    while (nameWidth(rest) > max) {
      let cut = 1;
      while (cut < rest.length && nameWidth(rest.slice(0, cut + 1)) <= max) cut++;
      lines.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    line = rest;
  }
  if (line) lines.push(line);
  return lines;
}

const cache = new Map<string, NodeCard>();

/**
 * The card of a declared node named `name`; `stateLine` on a run's canvas. The node type is left out of
 * the size (the layout is keyed by names and edges, so a type edit does not move the graph): the
 * engine's types are all narrower than the smallest card.
 */
export function nodeCard(name: string, stateLine: boolean): NodeCard {
  const key = `${stateLine ? 1 : 0}\u0000${name}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const dot = stateLine ? DOT : 0;
  const maxName = MAX_WIDTH - INSET_X - dot;
  const nameLines = nameLinesOf(name, maxName);
  const content = Math.max(
    ...nameLines.map((l) => nameWidth(l) + dot),
    stateLine ? STATE_RESERVE : 0,
  );
  const width = Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, content + INSET_X));
  const height = INSET_Y + nameLines.length * NAME_LINE + LINE_GAP + SMALL_LINE + (stateLine ? SMALL_LINE : 0);
  const card: NodeCard = { width, height, nameLines, stateLine };
  if (cache.size > 2000) cache.clear();
  cache.set(key, card);
  return card;
}

/**
 * The state line of a run's card: the state's label, with the caller's caption (`3 runs`) after it,
 * or the caption alone when it already names the state (a subgraph's `running · 2/3`).
 */
export function stateText(state: NodeRunState | undefined, caption: string | undefined): string {
  if (!state) return caption ?? "not run";
  const label = NODE_STATE_LABEL[state];
  if (!caption) return label;
  return caption.startsWith(state) ? caption : `${label} · ${caption}`;
}

import { StateValidationError } from "./errors";
import type { StateFields } from "./state-fields";

/** The value recorded for a field that was not set before the node wrote it. */
const ABSENT = Symbol("absent");

type State = Record<string | symbol, unknown>;

const NO_PROBLEMS: readonly StateWriteProblem[] = Object.freeze([]);

/** A field of a node's writes that its schema refuses: what StateValidationError reports. */
export interface StateWriteProblem {
  readonly field: string;
  readonly problem: string;
  readonly value: unknown;
  /** The field still holds the refused value: it was changed in place, so its earlier value is gone. */
  readonly kept: boolean;
}

/**
 * What one node execution touched in the shared state, seen through the proxy its `ctx.state` returns:
 * the top-level fields it assigned or deleted, and those it read as an object or array (it may have
 * changed them in place, `state.items.push(x)`). Only these are checked when the node completes, each
 * with its own field schema: no parse of the whole state per node. Made on the node's first `ctx.state`,
 * so a node that never touches the state costs nothing.
 *
 * `live` counts, per field, the running executions that touched it: a completion in a parallel run
 * does not store a state another branch is still writing and has made invalid (`othersLeftInvalid`).
 */
export class StateWriteTracker implements ProxyHandler<State> {
  readonly proxy: State;
  /**
   * The fields this execution touched, and each one's value before it did (ABSENT when it was not set),
   * by position: a node touches a field or two, where a Map costs more to make and walk than a scan.
   */
  private readonly fields: string[] = [];
  private readonly befores: unknown[] = [];
  private released = false;

  constructor(
    private readonly state: State,
    private readonly live: Map<string, number> | undefined,
  ) {
    this.proxy = new Proxy(state, this);
  }

  get(target: State, key: string | symbol): unknown {
    const value = target[key];
    if (typeof value === "object" && value !== null && typeof key === "string") this.touch(key);
    return value;
  }

  set(target: State, key: string | symbol, value: unknown): boolean {
    if (typeof key === "string") this.touch(key);
    target[key] = value;
    return true;
  }

  deleteProperty(target: State, key: string | symbol): boolean {
    if (typeof key === "string") this.touch(key);
    return delete target[key];
  }

  defineProperty(target: State, key: string | symbol, descriptor: PropertyDescriptor): boolean {
    if (typeof key === "string") this.touch(key);
    return Reflect.defineProperty(target, key, descriptor);
  }

  private touch(field: string): void {
    if (this.fields.includes(field)) return;
    this.fields.push(field);
    this.befores.push(Object.hasOwn(this.state, field) ? this.state[field] : ABSENT);
    const live = this.live;
    if (live !== undefined) live.set(field, (live.get(field) ?? 0) + 1);
  }

  /**
   * The touched fields whose schema refuses their value, each put back to its value from before the
   * node (`kept` when that is the same object, changed in place). Empty when every write fits.
   */
  check(fields: StateFields): readonly StateWriteProblem[] {
    let problems: StateWriteProblem[] | undefined;
    for (let k = 0; k < this.fields.length; k++) {
      const field = this.fields[k];
      const value = this.state[field];
      const problem = fields.problemWith(field, value);
      if (problem === null) continue;
      const before = this.befores[k];
      if (before === ABSENT) delete this.state[field];
      else this.state[field] = before;
      const kept = before === value || (before !== ABSENT && fields.problemWith(field, before) !== null);
      (problems ??= []).push({ field, problem, value, kept });
    }
    return problems ?? NO_PROBLEMS;
  }

  /** Ends this execution's share of `live`: called once it is settled, whatever the outcome. */
  release(): void {
    const live = this.live;
    if (live === undefined || this.released) return;
    this.released = true;
    for (const field of this.fields) {
      const n = live.get(field)! - 1;
      if (n === 0) live.delete(field);
      else live.set(field, n);
    }
  }

  /** Whether this execution touched `field`. */
  touches(field: string): boolean {
    return this.fields.includes(field);
  }
}

/**
 * Whether a field another running execution touched holds a value its schema refuses: a write in
 * progress (`state.cfg = {}` before filling it in, across an await) must not be stored by a sibling's
 * completion (`own`: the completing execution's writes, if any). That execution's completion checks
 * and blames it.
 */
export function othersLeftInvalid(
  live: ReadonlyMap<string, number>,
  own: StateWriteTracker | null,
  fields: StateFields,
  state: Record<string, unknown>,
): boolean {
  for (const [field, n] of live) {
    if (own !== null && n === 1 && own.touches(field)) continue;
    if (fields.problemWith(field, state[field]) !== null) return true;
  }
  return false;
}

/** The failure of node `node` whose writes `problems` lists: names the first field, says what is wrong with each. */
export function stateWriteError(node: string, problems: readonly StateWriteProblem[]): StateValidationError {
  const each = problems.map(({ field, problem, value }) => `state field "${field}" invalid: ${problem} (value ${shown(value)})`);
  return new StateValidationError(problems[0].field, `node "${node}" left ${each.join("; ")}`, node);
}

function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

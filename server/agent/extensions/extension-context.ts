/** The data of a context: the point's documented keys, plus any key an extension adds for later ones. */
export type ContextData<D extends object> = Partial<D> & Record<string, unknown>;

export interface ExtensionContextInit<D extends object> {
  /** The session the run belongs to; "" when a caller has none (tests, unwired paths). */
  sessionId?: string;
  turnId?: string;
  /** The user's message of the turn, when there is one. */
  message?: string;
  /** The agent taking part, for callers that run several (a graph's agent node name, the chat's agent). */
  agentId?: string;
  data?: Partial<D>;
}

/**
 * The data bag passed to every extension call of one invocation (the spec's HookContext). Extensions read
 * their input from `data` and write results back: a TRANSFORM invocation chains through `data[key]`, so
 * the next extension sees what the previous one set. `get/set/merge/has/remove` are the whole API.
 */
export class ExtensionContext<D extends object = Record<string, unknown>> {
  readonly sessionId: string;
  readonly turnId: string | undefined;
  readonly message: string | undefined;
  /** Not readonly: the agent's invoker fills it in when the caller did not (see ExtensionInvoker). */
  agentId: string | undefined;
  readonly data: ContextData<D>;
  /** Set by a CANCELLABLE invocation to the extension that returned `false`, so callers can say who. */
  cancelledBy: string | undefined;

  constructor(init: ExtensionContextInit<D> = {}) {
    this.sessionId = init.sessionId ?? "";
    this.turnId = init.turnId;
    this.message = init.message;
    this.agentId = init.agentId;
    this.data = { ...init.data } as ContextData<D>;
  }

  get<K extends string>(key: K): ContextData<D>[K] | undefined;
  get<K extends string>(key: K, fallback: NonNullable<ContextData<D>[K]>): NonNullable<ContextData<D>[K]>;
  get(key: string, fallback?: unknown): unknown {
    return this.has(key) ? this.data[key] : fallback;
  }

  set<K extends string>(key: K, value: ContextData<D>[K]): void {
    (this.data as Record<string, unknown>)[key] = value;
  }

  merge(values: Partial<D> & Record<string, unknown>): void {
    Object.assign(this.data, values);
  }

  has(key: string): boolean {
    return Object.hasOwn(this.data, key);
  }

  /** Deletes the key and returns what it held (the spec's pop). */
  remove<K extends string>(key: K): ContextData<D>[K] | undefined {
    const value = this.data[key];
    delete (this.data as Record<string, unknown>)[key];
    return value;
  }
}

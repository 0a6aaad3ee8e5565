import { DEFAULT_INVOCATION_CONFIGS } from "./default-invocation-configs";
import type { ExtensionContext } from "./extension-context";
import type { ExtensionData } from "./extension-data";
import type { ExtensionManager } from "./extension-manager";
import type { ExtensionPoint } from "./extension-point";
import type { InvocationConfig } from "./invocation-config";

/**
 * Invokes a point the way its config says (the spec's HookInvoker): callers name the point, not the
 * strategy. Each point has a default config (DEFAULT_INVOCATION_CONFIGS); `configure` replaces one for
 * this invoker, and an inline `config` overrides it for a single call.
 *
 * The result depends on the mode: COLLECT → unknown[], TRANSFORM → the final value, UNTIL_HANDLED → the
 * handling value or undefined, CANCELLABLE → boolean. It is `unknown` on purpose: extensions are
 * untrusted, so a caller checks the shape before it uses a value.
 */
export class ExtensionInvoker {
  private readonly configs = new Map<ExtensionPoint, InvocationConfig>();

  /** `agentId`: the agent this invoker serves, given to every context that names none (the spec's agent_id). */
  constructor(
    readonly manager: ExtensionManager,
    private readonly options: { agentId?: string } = {},
  ) {}

  /** Whether any enabled extension handles `point`: lets callers skip building a context nobody reads. */
  handles(point: ExtensionPoint): boolean {
    return this.manager.extensionsFor(point).length > 0;
  }

  configFor(point: ExtensionPoint): InvocationConfig {
    return this.configs.get(point) ?? DEFAULT_INVOCATION_CONFIGS[point];
  }

  configure(point: ExtensionPoint, config: InvocationConfig): this {
    this.configs.set(point, config);
    return this;
  }

  invoke<P extends ExtensionPoint>(point: P, ctx: ExtensionContext<ExtensionData[P]>, config: InvocationConfig = this.configFor(point)): Promise<unknown> {
    ctx.agentId ??= this.options.agentId;
    switch (config.mode) {
      case "COLLECT":
        return this.manager.invokeCollect(point, ctx);
      case "TRANSFORM":
        return this.manager.invokeTransform(point, ctx, { key: config.transformKey, expectedType: config.expectedType });
      case "UNTIL_HANDLED":
        return this.manager.invokeUntilHandled(point, ctx);
      case "CANCELLABLE":
        return this.manager.invokeCancellable(point, ctx);
      default: {
        const unknownMode: never = config;
        throw new Error(`unknown invocation mode ${JSON.stringify(unknownMode)}`);
      }
    }
  }
}

import { existsSync, readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import type { TokenUsage } from "@/server/agent/llm/token-usage";

/** Prices of one model, per 1,000,000 tokens. Cache prices default to the input price. */
const ModelPriceSchema = z
  .object({
    input: z.number().nonnegative(),
    output: z.number().nonnegative(),
    cache_read: z.number().nonnegative().optional(),
    cache_creation: z.number().nonnegative().optional(),
  })
  .strict();

/**
 * The price table (`MODEX_MODEL_PRICES`, default `config/model-prices.yml`): a currency and, per model
 * name, what a million tokens cost. A name ending in `*` prices every model it starts (the longest
 * such prefix wins; an exact name wins over any prefix).
 */
export const ModelPriceTableSchema = z
  .object({
    currency: z.string().min(1).max(8).default("USD"),
    models: z.record(z.string().min(1), ModelPriceSchema).default({}),
  })
  .strict();

export type ModelPrice = z.output<typeof ModelPriceSchema>;
export type ModelPriceTable = z.output<typeof ModelPriceTableSchema>;

const PER = 1_000_000;

/** What tokens cost, per model, from the configured table; without a table every cost is unknown (null). */
export class ModelPrices {
  constructor(private readonly table: ModelPriceTable | null) {}

  /** The table in `file`; none when the file does not exist. An invalid file throws, naming what is wrong. */
  static fromFile(file: string): ModelPrices {
    if (!existsSync(file)) return new ModelPrices(null);
    const parsed = ModelPriceTableSchema.safeParse(parseYaml(readFileSync(file, "utf8")) ?? {});
    if (!parsed.success) throw new Error(`model prices ${file}: ${z.prettifyError(parsed.error)}`);
    return new ModelPrices(parsed.data);
  }

  get configured(): boolean {
    return this.table !== null;
  }

  get currency(): string | null {
    return this.table?.currency ?? null;
  }

  priceOf(model: string | null | undefined): ModelPrice | null {
    if (!this.table || !model) return null;
    const { models } = this.table;
    if (models[model]) return models[model];
    let best: { length: number; price: ModelPrice } | null = null;
    for (const [name, price] of Object.entries(models)) {
      if (!name.endsWith("*")) continue;
      const prefix = name.slice(0, -1);
      if (model.startsWith(prefix) && (!best || prefix.length > best.length)) best = { length: prefix.length, price };
    }
    return best?.price ?? null;
  }

  /**
   * What `usage` on `model` cost; null when the model has no price. Input tokens include the cached ones
   * (as OpenAI-compatible servers count them): those are charged at the cache prices instead.
   */
  costOf(model: string | null | undefined, usage: TokenUsage): number | null {
    const price = this.priceOf(model);
    if (!price) return null;
    const cached = usage.cacheReadTokens + usage.cacheCreationTokens;
    const fresh = Math.max(0, usage.inputTokens - cached);
    return (
      (fresh * price.input +
        usage.cacheReadTokens * (price.cache_read ?? price.input) +
        usage.cacheCreationTokens * (price.cache_creation ?? price.input) +
        usage.outputTokens * price.output) /
      PER
    );
  }
}

/** The app's table: `file` if it reads; an invalid one is reported and ignored (usage is then unpriced). */
export function loadModelPrices(file: string): ModelPrices {
  try {
    return ModelPrices.fromFile(file);
  } catch (error) {
    console.error(`[modex] ${error instanceof Error ? error.message : String(error)}: costs are not shown`);
    return new ModelPrices(null);
  }
}

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import type { Extension } from "@/server/agent/extensions/extension";
import { groupPoints, pointsWithListeners, type ListenedPoint, type PointGroup } from "@/server/agent/extensions/extension-catalogue";
import { ExtensionManager, type ExtensionStatus } from "@/server/agent/extensions/extension-manager";
import { consoleLogger, verboseConsoleLogger, type AgentLogger } from "@/server/agent/logger";
import type { TokenTotals } from "@/server/agent/extensions/builtin/token-totals";
import { chain, isPromise, type Awaitable } from "@/server/graph/awaitable";
import type { SecretMaskingPreview } from "@/shared/secret-masking-preview";
import { ServiceError } from "../errors";
import { builtinExtensions } from "./builtin-extensions";
import { BUILTIN_EXTENSION_NAMES, EXTENSIONS_CONFIG_FILE, ExtensionsConfigSchema, type ExtensionsConfig } from "./extensions-config";
import { loadExtensionModule, moduleFilesIn } from "./extension-module-loader";
import { InMemoryExtensionSettingsStore, type ExtensionSettingsStore } from "./extension-settings-store";
import { ExtensionStatisticsFlusher } from "./extension-statistics-flusher";
import { previewSecretMasking } from "./secret-masking-preview";
import type { ExtensionStatisticsStore, StoredExtensionStatistics } from "./extension-statistics-store";

/** Where an extension came from: a built-in of the config, or a module file. */
export type ExtensionSource = { kind: "builtin" } | { kind: "module"; file: string };

export interface ExtensionView extends ExtensionStatus {
  source: ExtensionSource;
  /** Its `points` under the spec's group names, each with its invocation mode. */
  groups: PointGroup[];
}

export interface ExtensionLoadFailure {
  file: string;
  message: string;
}

export interface ExtensionsReport {
  /** The extensions folder (MODEX_EXTENSIONS_DIR, absolute), where a person adds one; null: none (tests). */
  dir: string | null;
  extensions: ExtensionView[];
  /** Modules (or the config file) that did not load, with why; the app runs without them. */
  failed: ExtensionLoadFailure[];
  /** All 25 points by group, with their modes and the enabled extensions listening at each. */
  pointGroups: PointGroup<ListenedPoint>[];
}

export interface AppExtensionsOptions {
  /** MODEX_EXTENSIONS_DIR: extensions.yml and the module files; none in unit tests. */
  dir?: string;
  settings?: ExtensionSettingsStore;
  /**
   * The app database's statistics, summed over every process and kept across restarts; none: this
   * process's counts only, from its start (unit tests).
   */
  statistics?: ExtensionStatisticsStore;
  /** Where `token_budget` keeps each instance's total (the app database); none: this process's memory. */
  tokenTotals?: TokenTotals;
  logger?: AgentLogger;
}

/**
 * The app's extensions: one ExtensionManager, handed to every agent the assembly builds (chat and graph
 * nodes), filled at start-up from the extensions folder: the built-ins `extensions.yml` configures
 * (registered at once) and each module file (`load()`, before any run starts). A module that fails is
 * reported with its path and skipped. Whether each is enabled is a person's choice, kept in the store
 * and applied as each registers.
 */
export class AppExtensions {
  readonly manager: ExtensionManager;
  private readonly sources = new Map<string, ExtensionSource>();
  private readonly failed: ExtensionLoadFailure[] = [];
  private readonly settings: ExtensionSettingsStore;
  private readonly logger: AgentLogger;
  private readonly config: ExtensionsConfig;
  private loading: Promise<void> | null = null;
  /** Saved states still being read (an asynchronous store): `load` waits for them. */
  private readonly applying = new Set<Promise<void>>();
  private readonly flusher: ExtensionStatisticsFlusher | null;

  constructor(private readonly options: AppExtensionsOptions = {}) {
    this.logger = options.logger ?? consoleLogger;
    this.config = this.readConfig();
    this.manager = new ExtensionManager({ logger: this.logger, callTimeoutMs: this.config.call_timeout_ms });
    this.settings = options.settings ?? new InMemoryExtensionSettingsStore();
    this.flusher = options.statistics ? new ExtensionStatisticsFlusher(this.manager, options.statistics, this.logger) : null;
    // The logging extension is turned on to be read: its info lines go to the server's stdout by default.
    const builtins = builtinExtensions(this.config.builtins, { logger: options.logger ?? verboseConsoleLogger, tokenTotals: options.tokenTotals });
    for (const ext of builtins) this.add(ext, { kind: "builtin" });
  }

  /** Registers an extension (tests, and modules as they load), applying its saved enabled state. */
  add(extension: Extension, source: ExtensionSource = { kind: "builtin" }): boolean {
    if (!this.manager.register(extension)) return false;
    this.sources.set(extension.name, source);
    // A synchronous store (in memory, SQLite) applies the saved state now; another before `load` resolves.
    const applied = chain(this.settings.all(), (all) => {
      const saved = all.get(extension.name);
      if (saved !== undefined) extension.enabled = saved;
    });
    if (isPromise(applied)) {
      const tracked: Promise<void> = applied
        .catch((e: unknown) => this.logger.error(`[modex] the saved state of extension ${extension.name} was not read: ${e instanceof Error ? e.message : String(e)}`, {}))
        .finally(() => this.applying.delete(tracked));
      this.applying.add(tracked);
    }
    return true;
  }

  /**
   * Loads the folder's module files and the config's `modules`, plus `extra` (agent definitions'
   * `extensions`), once; resolves when every extension has its saved enabled state.
   */
  load(extra: readonly string[] = []): Promise<void> {
    // From here on the statistics go to the database about once a second (the hook calls never wait for it).
    this.flusher?.start();
    this.loading ??= this.loadModules(extra).then(() => this.settled());
    return this.loading;
  }

  /** Adds the statistics not yet saved (shutdown): what a stop loses is nothing, a crash at most the last second's. */
  close(): Awaitable<void> {
    return this.flusher?.close();
  }

  /** Resolves once the saved state of every extension registered so far is applied. */
  async settled(): Promise<void> {
    while (this.applying.size > 0) await Promise.all([...this.applying]);
  }

  /**
   * Every extension with its statistics: with a store, summed over every process since the last reset
   * (this process's counts are added first; another's are at most one flush interval behind).
   */
  report(): Awaitable<ExtensionsReport> {
    const build = (stored?: Map<string, StoredExtensionStatistics>): ExtensionsReport => {
      const extensions = this.manager.getStatistics().extensions.map((s) => ({
        ...(stored ? withStored(s, stored.get(s.name)) : s),
        source: this.sources.get(s.name) ?? { kind: "builtin" as const },
        groups: groupPoints(s.points),
      }));
      return { dir: this.options.dir ?? null, extensions, failed: [...this.failed], pointGroups: pointsWithListeners(extensions) };
    };
    const { flusher, options } = this;
    if (!flusher || !options.statistics) return build();
    const store = options.statistics;
    return chain(flusher.flush(), () => chain(store.totals(), (totals) => build(totals.byName)));
  }

  /** Turns an extension on or off; the choice is committed before this answers, and kept across restarts. */
  async setEnabled(name: string, enabled: boolean): Promise<ExtensionView> {
    if (!this.manager.get(name)) throw new ServiceError("NOT_FOUND", `no extension named ${name}`);
    await this.settings.setEnabled(name, enabled);
    if (enabled) this.manager.enableExtension(name);
    else this.manager.disableExtension(name);
    return (await this.report()).extensions.find((e) => e.name === name)!;
  }

  /**
   * Zeroes the extensions' statistics (calls, errors, latest failure, vetoes, time, own counters): with a
   * store, every process's (each drops what it had not saved at its next flush); answers the report.
   */
  resetStatistics(): Awaitable<ExtensionsReport> {
    if (!this.flusher) {
      this.manager.resetStatistics();
      return this.report();
    }
    return chain(this.flusher.reset(), () => this.report());
  }

  /** `text` as the running secret_masking would mask it; nothing stored, logged or counted (see previewSecretMasking). */
  previewSecretMasking(text: string): SecretMaskingPreview {
    return previewSecretMasking(this.manager, text);
  }

  /** Applies the saved states again: another process toggled one (a PostgreSQL cluster announces it). */
  async refresh(): Promise<void> {
    for (const [name, enabled] of await this.settings.all()) {
      if (enabled) this.manager.enableExtension(name);
      else this.manager.disableExtension(name);
    }
  }

  private async loadModules(extra: readonly string[]): Promise<void> {
    const dir = this.options.dir;
    const files = dir ? [...moduleFilesIn(dir), ...this.config.modules.map((m) => path.resolve(dir, m))] : [];
    for (const f of extra) files.push(dir ? path.resolve(dir, f) : path.resolve(f));
    for (const file of [...new Set(files)]) {
      try {
        const extension = await loadExtensionModule(file, this.logger);
        if (BUILTIN_EXTENSION_NAMES.includes(extension.name)) throw new Error(`the name ${extension.name} is reserved for the built-in; give the module another name`);
        if (!this.add(extension, { kind: "module", file })) throw new Error(`an extension named ${extension.name} is already registered`);
      } catch (e) {
        this.fail(file, e instanceof Error ? e.message : String(e));
      }
    }
  }

  private readConfig(): ExtensionsConfig {
    const file = this.options.dir ? path.join(this.options.dir, EXTENSIONS_CONFIG_FILE) : null;
    if (!file || !existsSync(file)) return ExtensionsConfigSchema.parse({});
    try {
      return ExtensionsConfigSchema.parse(parseYaml(readFileSync(file, "utf8")) ?? {});
    } catch (e) {
      this.fail(file, e instanceof z.ZodError ? z.prettifyError(e) : e instanceof Error ? e.message : String(e));
      return ExtensionsConfigSchema.parse({});
    }
  }

  private fail(file: string, message: string): void {
    this.failed.push({ file, message });
    this.logger.error(`[modex] extension ${file} not loaded: ${message}`, { file });
  }
}

/** A status with the store's totals in place of this process's counts (its own counters' names kept). */
function withStored(status: ExtensionStatus, stored: StoredExtensionStatistics | undefined): ExtensionStatus {
  const { lastError: _local, ...rest } = status;
  const totals = stored ?? { calls: 0, failures: 0, vetoes: 0, timeMs: 0, counters: {} };
  const out: ExtensionStatus = { ...rest, calls: totals.calls, failures: totals.failures, vetoes: totals.vetoes, timeMs: totals.timeMs };
  if (status.counters) out.counters = Object.fromEntries(Object.keys({ ...status.counters, ...totals.counters }).map((k) => [k, totals.counters[k] ?? 0]));
  if (totals.lastError) out.lastError = totals.lastError;
  return out;
}

import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { DEFAULT_EXTENSION_PRIORITY, type Extension } from "@/server/agent/extensions/extension";
import type { AgentLogger } from "@/server/agent/logger";

const MODULE_FILE = /\.(mjs|js)$/;

/**
 * A real dynamic `import()` of a file at run time. Next.js bundles the server, and a plain `import(x)`
 * would be rewritten into the bundle's own module loader, which cannot load a file that was not there
 * at build time: the comments tell Turbopack and webpack to leave this one to Node.
 */
function importAtRunTime(url: string): Promise<Record<string, unknown>> {
  return import(/* webpackIgnore: true */ /* turbopackIgnore: true */ url);
}

/** The extension module files of a folder, by name: `*.mjs` and `*.js`. */
export function moduleFilesIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => MODULE_FILE.test(f))
    .sort()
    .map((f) => path.join(dir, f));
}

export class ExtensionModuleError extends Error {
  readonly code = "EXTENSION_MODULE_INVALID";
}

/**
 * Loads one module and makes its default export an extension. The export may be an extension object
 * (a `name` and `on…` methods), a class (constructed with `{ logger }`), or a function returning either
 * (called with `{ logger }`, may be async). An object gets the defaults an Extension has: priority 50,
 * enabled.
 */
export async function loadExtensionModule(file: string, logger: AgentLogger): Promise<Extension> {
  const mod = await importAtRunTime(pathToFileURL(file).href);
  const exported = mod.default;
  if (exported === undefined) throw new ExtensionModuleError("the module has no default export");
  const value = typeof exported === "function" ? await instantiate(exported as (...a: unknown[]) => unknown, { logger }) : exported;
  return asExtension(value);
}

async function instantiate(fn: (...a: unknown[]) => unknown, args: { logger: AgentLogger }): Promise<unknown> {
  const isClass = /^class[\s{]/.test(Function.prototype.toString.call(fn));
  return isClass ? new (fn as unknown as new (a: unknown) => unknown)(args) : await fn(args);
}

function asExtension(value: unknown): Extension {
  if (typeof value !== "object" || value === null) throw new ExtensionModuleError("the default export is not an extension (an object, a class or a function returning one)");
  const ext = value as Partial<Extension> & Record<string, unknown>;
  if (typeof ext.name !== "string" || !/^[A-Za-z][\w.-]{0,63}$/.test(ext.name)) throw new ExtensionModuleError("the extension needs a `name`: a letter, then letters, digits, _ . or - (at most 64)");
  if (typeof ext.priority !== "number" || !Number.isFinite(ext.priority)) ext.priority = DEFAULT_EXTENSION_PRIORITY;
  if (typeof ext.enabled !== "boolean") ext.enabled = true;
  return ext as Extension;
}

import { type Dirent, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * Keeps the layers of ARCHITECTURE.md honest by reading every import in the source tree:
 *
 * - server/graph (the engine) imports only zod, `node:` built-ins and files inside server/graph;
 * - server/agent builds on the engine only: server/graph, itself, and a short list of packages;
 * - client components (`"use client"` files in app/ and components/) reach server code as types only;
 * - shared/ (plain TypeScript both sides run) reaches server code as types only, and nothing of the app
 *   or its components;
 * - server code (server/, app/api) reaches no component or page code: what both sides need is in shared/.
 *
 * Test files may also import the test tooling. Folders that do not exist yet are simply empty.
 */

const ROOT = path.resolve(import.meta.dirname, "..");
const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const SKIP_DIRS = new Set(["node_modules", ".next", "generated", ".tmp", "test-results", "playwright-report"]);
// Conformance suites (`x.conformance.ts`) are test code that backends import into their own tests.
const TEST_FILE = /\.(test|spec|conformance)\.(ts|tsx)$/;
const TEST_PACKAGES = ["vitest", "fast-check"];

interface ImportRef {
  specifier: string;
  typeOnly: boolean;
}

/** Every module a file refers to: static imports and re-exports, `import()`, `require()`. */
function importsOf(fileName: string, source: string): ImportRef[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: ImportRef[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: isTypeOnlyImport(node.importClause) });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal)) {
        found.push({ specifier: arg.literal.text, typeOnly: true });
      }
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === "require")) &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function isTypeOnlyImport(clause: ts.ImportClause | undefined): boolean {
  if (!clause) return false; // `import "x"` runs x
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  // `import { type A, type B } from "x"` is erased as well.
  return !clause.name && !!bindings && ts.isNamedImports(bindings) && bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly);
}

/** A repository-relative path for local imports (`./x`, `@/x`), or null for a package. */
function localTarget(fromFile: string, specifier: string): string | null {
  if (specifier.startsWith(".")) return path.relative(ROOT, path.resolve(path.dirname(fromFile), specifier));
  if (specifier.startsWith("@/")) return path.normalize(specifier.slice(2));
  return null;
}

function within(relPath: string, folder: string): boolean {
  return relPath === folder || relPath.startsWith(`${folder}/`);
}

function isPackage(specifier: string, names: string[]): boolean {
  return names.some((name) => specifier === name || specifier.startsWith(`${name}/`));
}

function sourceFiles(folder: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(path.join(ROOT, folder), { withFileTypes: true });
  } catch {
    return []; // a layer nobody has written yet
  }
  return entries.flatMap((entry) => {
    const rel = path.join(folder, entry.name);
    if (entry.isDirectory()) return SKIP_DIRS.has(entry.name) ? [] : sourceFiles(rel);
    return SOURCE.test(entry.name) && !entry.name.endsWith(".d.ts") ? [rel] : [];
  });
}

/** One violation per offending import, as "file: specifier (why)". */
type Rule = (file: string, ref: ImportRef) => string | null;

function violations(folder: string, rule: Rule, onlyFiles?: (source: string) => boolean): string[] {
  return sourceFiles(folder).flatMap((file) => {
    const source = readFileSync(path.join(ROOT, file), "utf8");
    if (onlyFiles && !onlyFiles(source)) return [];
    return importsOf(file, source)
      .map((ref) => rule(file, ref))
      .filter((problem): problem is string => problem !== null)
      .map((problem) => `${file}: ${problem}`);
  });
}

const engineRule: Rule = (file, { specifier }) => {
  const target = localTarget(path.join(ROOT, file), specifier);
  if (target !== null) return within(target, "server/graph") ? null : `${specifier} (outside server/graph)`;
  if (specifier.startsWith("node:") || isPackage(specifier, ["zod"])) return null;
  if (TEST_FILE.test(file) && isPackage(specifier, TEST_PACKAGES)) return null;
  return `${specifier} (the engine imports only zod and node: built-ins)`;
};

// The agent runtime speaks the ecosystem's protocols through their official SDKs (OpenAI's, MCP's).
const AGENT_PACKAGES = ["zod", "openai", "@modelcontextprotocol/sdk", "@opentelemetry/api", "yaml", "diff"];

const agentRule: Rule = (file, { specifier }) => {
  const target = localTarget(path.join(ROOT, file), specifier);
  if (target !== null) {
    return within(target, "server/graph") || within(target, "server/agent")
      ? null
      : `${specifier} (the agent runtime builds on server/graph only)`;
  }
  if (specifier.startsWith("node:") || isPackage(specifier, AGENT_PACKAGES)) return null;
  if (TEST_FILE.test(file) && isPackage(specifier, TEST_PACKAGES)) return null;
  return `${specifier} (not an allowed package for server/agent)`;
};

const clientRule: Rule = (file, { specifier, typeOnly }) => {
  const target = localTarget(path.join(ROOT, file), specifier);
  const server = (target !== null && within(target, "server")) || specifier === "server-only";
  return server && !typeOnly ? `${specifier} (client code may import server code as types only: import type)` : null;
};

const sharedRule: Rule = (file, { specifier, typeOnly }) => {
  const target = localTarget(path.join(ROOT, file), specifier);
  if (target !== null && (within(target, "app") || within(target, "components"))) return `${specifier} (shared code imports no app or component code)`;
  return clientRule(file, { specifier, typeOnly });
};

/** Server code (server/, the API routes) reaches no component or page code, types included. */
const serverRule: Rule = (file, { specifier }) => {
  const target = localTarget(path.join(ROOT, file), specifier);
  if (target === null) return null;
  if (within(target, "components") || (within(target, "app") && !within(target, "app/api"))) return `${specifier} (server code imports no component or page code)`;
  return null;
};

const USE_CLIENT = /^(?:\s|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*["']use client["']/;

// Parsing every source file (~1,500) takes a few seconds alone, and up to ~30 s with the rest of the
// suite (or a build) on the same two cores: the default 20 s timed out.
describe("layering", { timeout: 90_000 }, () => {
  it("server/graph imports only zod, node: built-ins and itself", () => {
    expect(violations("server/graph", engineRule)).toEqual([]);
  });

  it("server/agent imports only server/graph, itself and its allowed packages", () => {
    expect(violations("server/agent", agentRule)).toEqual([]);
  });

  it('client components ("use client") import server code as types only', () => {
    const isClient = (source: string) => USE_CLIENT.test(source);
    expect([...violations("app", clientRule, isClient), ...violations("components", clientRule, isClient)]).toEqual(
      [],
    );
  });

  it("shared/ imports server code as types only, and no app or component code", () => {
    expect(violations("shared", sharedRule)).toEqual([]);
  });

  it("server code (server/, app/api) imports no component or page code", () => {
    expect([...violations("server", serverRule), ...violations("app/api", serverRule)]).toEqual([]);
  });
});

describe("the layering checks themselves", () => {
  const refs = (source: string) => importsOf("x.ts", source);
  const at = (folder: string) => path.join(folder, "x.ts");

  it("find static, dynamic, re-exported and type-only imports", () => {
    expect(
      refs(`import a from "a"; import type { B } from "b"; import { type C } from "c"; import "d";
            export { e } from "e"; export type { F } from "f"; const g = await import("g"); require("h");
            let i: import("i").I;`),
    ).toEqual([
      { specifier: "a", typeOnly: false },
      { specifier: "b", typeOnly: true },
      { specifier: "c", typeOnly: true },
      { specifier: "d", typeOnly: false },
      { specifier: "e", typeOnly: false },
      { specifier: "f", typeOnly: true },
      { specifier: "g", typeOnly: false },
      { specifier: "h", typeOnly: false },
      { specifier: "i", typeOnly: true },
    ]);
  });

  it("keep the engine free of anything above it", () => {
    const value = (specifier: string) => ({ specifier, typeOnly: false });
    expect(engineRule(at("server/graph"), value("zod"))).toBeNull();
    expect(engineRule(at("server/graph"), value("node:fs"))).toBeNull();
    expect(engineRule(at("server/graph/core"), value("../store"))).toBeNull();
    expect(engineRule(at("server/graph"), value("fs"))).not.toBeNull();
    expect(engineRule(at("server/graph"), value("../agent/runtime"))).not.toBeNull();
    expect(engineRule(at("server/graph"), value("@/server/db/client"))).not.toBeNull();
    expect(engineRule(at("server/graph"), { specifier: "@/server/agent/x", typeOnly: true })).not.toBeNull();
    expect(engineRule(at("server/graph"), value("vitest"))).not.toBeNull();
    expect(engineRule("server/graph/x.test.ts", value("vitest"))).toBeNull();
    expect(engineRule("server/graph/persistence/conformance/x.conformance.ts", value("vitest"))).toBeNull();
  });

  it("keep the agent runtime on the engine only", () => {
    const value = (specifier: string) => ({ specifier, typeOnly: false });
    expect(agentRule(at("server/agent"), value("../graph/engine"))).toBeNull();
    expect(agentRule(at("server/agent/llm"), value("openai"))).toBeNull();
    expect(agentRule(at("server/agent"), value("@opentelemetry/api"))).toBeNull();
    for (const banned of ["@/server/api/root", "../db/client", "@/server/services/x", "@/app/page", "@/components/x"]) {
      expect(agentRule(at("server/agent"), value(banned))).not.toBeNull();
    }
    expect(agentRule(at("server/agent"), value("next/server"))).not.toBeNull();
  });

  it("let client code reach the server only through types", () => {
    expect(clientRule(at("components"), { specifier: "@/server/api/root", typeOnly: true })).toBeNull();
    expect(clientRule(at("components"), { specifier: "@/server/api/root", typeOnly: false })).not.toBeNull();
    expect(clientRule(at("app/x"), { specifier: "../../server/env", typeOnly: false })).not.toBeNull();
    expect(clientRule(at("components"), { specifier: "react", typeOnly: false })).toBeNull();
    expect(USE_CLIENT.test(`// note\n"use client";\nimport x from "y";`)).toBe(true);
    expect(USE_CLIENT.test(`import x from "y";\n"use client";`)).toBe(false);
  });

  it("keep server code off components and pages, types included", () => {
    expect(serverRule(at("server/api"), { specifier: "@/components/canvas/topology", typeOnly: true })).not.toBeNull();
    expect(serverRule(at("server/api"), { specifier: "@/shared/canvas/topology", typeOnly: false })).toBeNull();
    expect(serverRule(at("app/api"), { specifier: "@/app/api/graphs/route", typeOnly: false })).toBeNull();
  });

  it("let shared code reach the server only through types, and the app not at all", () => {
    expect(sharedRule(at("shared"), { specifier: "@/server/graph/events", typeOnly: true })).toBeNull();
    expect(sharedRule(at("shared"), { specifier: "@/server/graph/events", typeOnly: false })).not.toBeNull();
    expect(sharedRule(at("shared"), { specifier: "@/components/api/contract", typeOnly: true })).not.toBeNull();
    expect(sharedRule(at("shared"), { specifier: "../app/page", typeOnly: false })).not.toBeNull();
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { wideSpec as spec } from "@/bench/wide-spec.mjs";
import { migrate, readMigrations } from "@/server/db/migrate";
import { isPromise, type Awaitable } from "@/server/graph/awaitable";
import { openGraphDatabase } from "@/server/db/graph-database";
import { TempDatabase } from "@/server/db/testing/temp-database";
import type { CompiledGraph } from "@/server/graph/compiled-graph";
import type { GraphSpec } from "@/server/graph/spec/graph-spec";
import { GraphSpecCompiler, type SpecCompileOptions } from "@/server/graph/spec/graph-spec-compiler";
import type { GraphStateSchema } from "@/server/graph/state";
import { parseSpecYaml } from "@/server/spec/parse-spec-yaml";
import { specYamlContent } from "@/server/spec/spec-content";
import { OFF_THREAD_MIN_CHARS, SpecService } from "./spec-service";
import { InMemorySpecStore, type SpecRecord, type SpecSaveOutcome } from "./spec-store";
import { SqliteSpecStore } from "./sqlite-spec-store";
import { EXAMPLE_SPECS_DIR, testServices } from "./testing/test-services";

const MAP_REDUCE = readFileSync(path.join(EXAMPLE_SPECS_DIR, "map-reduce.yml"), "utf8");
const LISTING_MIGRATION = "20261201120000_spec_listing";

/** `chains` chains of `depth` function nodes between a fan_out and a join: chains × depth + 2 nodes. */
const wideSpec = (name: string, chains: number, depth: number): string => spec({ name, chains, depth, version: "7", description: "a wide one" });

/** A synchronous answer's value (SQLite, a cached revision); a promise fails the test. */
function ready<T>(value: Awaitable<T>): T {
  if (isPromise(value)) throw new Error("answered with a promise, not at once");
  return value;
}

/** Overwrites every stored YAML with text that does not read: whatever still works read none. */
function breakEveryYaml(db: BetterSqlite3.Database): void {
  db.prepare(`UPDATE graph_specs SET yaml = 'nodes: [ unterminated'`).run();
}

describe("SpecService on SQLite", () => {
  it("lists what it kept at save time, reading no YAML", async () => {
    using temp = new TempDatabase();
    const specs = new SpecService(new SqliteSpecStore(temp.db));
    await specs.save(MAP_REDUCE);
    await specs.save(wideSpec("wide", 3, 2));
    breakEveryYaml(temp.db);
    expect((await specs.list()).map((s) => [s.name, s.version, s.nodeCount, s.description])).toEqual([
      ["map-reduce", "1", 5, "Fan a list of words out to three mappers (word length), then fan in and sum the lengths."],
      ["wide", "7", 8, "a wide one"],
    ]);
    expect(await specs.history("wide")).toMatchObject([{ nodeCount: 8, description: "a wide one" }]);
  });

  it("lists the latest revision of each name, newest first in history, and dedups unchanged content", async () => {
    using temp = new TempDatabase();
    const specs = new SpecService(new SqliteSpecStore(temp.db));
    const first = await specs.save(wideSpec("wide", 2, 2));
    expect(await specs.save(wideSpec("wide", 2, 2))).toEqual({ ...first, created: false });
    const second = await specs.save(wideSpec("wide", 2, 3));
    expect(second.created).toBe(true);
    expect(await specs.list()).toMatchObject([{ specId: second.specId, nodeCount: 8 }]);
    expect((await specs.history("wide")).map((s) => [s.specId, s.nodeCount])).toEqual([
      [second.specId, 8],
      [first.specId, 6],
    ]);
  });

  it("a restart's folder load keeps a revision saved since as the latest; a changed file is saved", async () => {
    using temp = new TempDatabase();
    const dir = mkdtempSync(path.join(tmpdir(), "modex-specs-"));
    try {
      writeFileSync(path.join(dir, "wide.yml"), wideSpec("wide", 2, 2));
      const specs = new SpecService(new SqliteSpecStore(temp.db));
      expect(ready(specs.loadDirectory(dir))).toMatchObject({ loaded: ["wide"], created: ["wide"] });
      const edited = await specs.save(wideSpec("wide", 2, 3));
      // The next start (a new service on the same database) reads the unchanged file: the edit stays.
      const restarted = new SpecService(new SqliteSpecStore(temp.db));
      expect(ready(restarted.loadDirectory(dir))).toMatchObject({ loaded: ["wide"], created: [] });
      expect(await restarted.list()).toMatchObject([{ specId: edited.specId, nodeCount: 8 }]);
      expect(await restarted.history("wide")).toHaveLength(2);
      // A file changed on disk is new content: saved as the latest.
      writeFileSync(path.join(dir, "wide.yml"), wideSpec("wide", 3, 3));
      expect(ready(restarted.loadDirectory(dir))).toMatchObject({ loaded: ["wide"], created: ["wide"] });
      expect(await restarted.list()).toMatchObject([{ name: "wide", nodeCount: 11 }]);
      expect(await restarted.history("wide")).toHaveLength(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("hashes content as before (rows saved by earlier versions still dedup)", async () => {
    using temp = new TempDatabase();
    const specs = new SpecService(new SqliteSpecStore(temp.db));
    const saved = await specs.save(MAP_REDUCE);
    expect((await specs.get(saved.specId)).contentHash).toBe(specYamlContent(MAP_REDUCE).hash);
  });

  it("fills in the listing of rows migrated from before it was kept, once", async () => {
    using temp = new TempDatabase();
    const file = temp.file;
    temp.db.close();
    // An existing database: every migration before the listing one, and a spec row as it was written then.
    const old = new BetterSqlite3(file);
    migrate(old, readMigrations().filter((m) => m.name < LISTING_MIGRATION));
    const insertOld = old.prepare(`INSERT INTO graph_specs (spec_id, name, version, yaml, content_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)`);
    insertOld.run("101", "map-reduce", "1", MAP_REDUCE, specYamlContent(MAP_REDUCE).hash, 1_000);
    insertOld.run("102", "gone-type", "1", "name: gone-type\nnodes:\n  - { name: a, node_type: teleport }\n", "sha256:x", 2_000);
    old.close();

    temp.db = openGraphDatabase(file); // migrates the rest
    const specs = new SpecService(new SqliteSpecStore(temp.db));
    const listingOf = () => temp.db.prepare(`SELECT name, description IS NOT NULL AS described, node_count, listing_version FROM graph_specs ORDER BY name`).all();
    expect(listingOf()).toEqual([
      { name: "gone-type", described: 0, node_count: null, listing_version: 0 },
      { name: "map-reduce", described: 0, node_count: null, listing_version: 0 },
    ]);
    expect((await specs.list()).map((s) => [s.name, s.nodeCount])).toEqual([
      ["gone-type", null], // does not read any more: listed without a count
      ["map-reduce", 5],
    ]);
    expect(listingOf()).toEqual([
      { name: "gone-type", described: 0, node_count: null, listing_version: 1 },
      { name: "map-reduce", described: 1, node_count: 5, listing_version: 1 },
    ]);
    breakEveryYaml(temp.db);
    expect((await specs.list()).map((s) => [s.name, s.nodeCount])).toEqual([
      ["gone-type", null],
      ["map-reduce", 5],
    ]);
    // An unchanged re-save still dedups against the migrated row.
    expect(await specs.save(MAP_REDUCE)).toEqual({ specId: "101", name: "map-reduce", created: false });
  });

  it("saves a 20,000-node spec and lists it without parsing it again", async () => {
    using temp = new TempDatabase();
    const specs = new SpecService(new SqliteSpecStore(temp.db));
    const yaml = wideSpec("huge", 198, 101);
    const saved = await specs.save(yaml);
    for (let i = 0; i < 99; i++) await specs.save(wideSpec(`small-${String(i).padStart(2, "0")}`, 1, 1));
    const t1 = performance.now();
    const list = await specs.list();
    const listMs = performance.now() - t1;
    expect(list).toHaveLength(100);
    expect(list.find((s) => s.specId === saved.specId)?.nodeCount).toBe(20_000);
    // Reading that YAML with the `yaml` package takes over a second (js-yaml ~0.15 s): a list that took
    // less than a second read none of it. The figures are bench:load's.
    expect(listMs).toBeLessThan(1_000);
  }, 60_000);
});

describe("SpecService off the event loop", () => {
  it("saves a large spec as `save` does, reading its YAML on a worker while this thread keeps running", async () => {
    using temp = new TempDatabase();
    const specs = new SpecService(new SqliteSpecStore(temp.db));
    const yaml = wideSpec("huge", 198, 101);
    expect(yaml.length).toBeGreaterThan(OFF_THREAD_MIN_CHARS);
    // The event loop's longest stall while the save runs: the compile (here), not the YAML read.
    let last = performance.now();
    let longest = 0;
    const ticks = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 5);
    const t0 = performance.now();
    const saved = await specs.saveAsync(yaml);
    const total = performance.now() - t0;
    clearInterval(ticks);
    expect(saved.created).toBe(true);
    expect(longest).toBeLessThan(total / 2);
    const stored = await specs.get(saved.specId);
    expect(stored).toMatchObject({ nodeCount: 20_000, description: "a wide one", contentHash: specYamlContent(yaml).hash });
    expect(await specs.saveAsync(yaml)).toEqual({ ...saved, created: false });
  }, 60_000);

  it("other work runs between the steps left on this thread: validating, compiling, storing", async () => {
    const log: string[] = [];
    class LoggedCompiler extends GraphSpecCompiler {
      override parse(input: unknown): GraphSpec {
        log.push("validate");
        return super.parse(input);
      }
      override compileParsed(spec: GraphSpec, options?: SpecCompileOptions): CompiledGraph<GraphStateSchema> {
        log.push("compile");
        return super.compileParsed(spec, options);
      }
    }
    class LoggedStore extends SqliteSpecStore {
      override saveIfChanged(record: SpecRecord): SpecSaveOutcome {
        log.push("insert");
        return super.saveIfChanged(record);
      }
    }
    using temp = new TempDatabase();
    const specs = new SpecService(new LoggedStore(temp.db), undefined, new LoggedCompiler());
    let turning = true;
    const turn = () => {
      if (log.at(-1) !== "turn") log.push("turn");
      if (turning) setImmediate(turn);
    };
    setImmediate(turn);
    const saved = await specs.saveAsync(wideSpec("huge", 198, 101));
    turning = false;
    expect(saved.created).toBe(true);
    expect(log.filter((step) => step !== "turn")).toEqual(["validate", "compile", "insert"]);
    const from = log.indexOf("validate");
    expect(log.slice(from, log.indexOf("insert") + 1)).toEqual(["validate", "turn", "compile", "turn", "insert"]);
  }, 60_000);

  it("answers a large spec that does not compile with the located issues `save` gives", async () => {
    const specs = new SpecService(new InMemorySpecStore());
    const broken = wideSpec("huge", 40, 101).replace("  - { from: c3_4, to: c3_5 }", "  - { from: c3_4, to: nowhere }");
    expect(broken.length).toBeGreaterThan(OFF_THREAD_MIN_CHARS);
    const here = await (async () => {
      try {
        await specs.save(broken);
      } catch (error) {
        return error;
      }
    })();
    await expect(specs.saveAsync(broken)).rejects.toEqual(here);
    expect(here).toMatchObject({ details: { issues: [expect.objectContaining({ line: expect.any(Number), column: expect.any(Number) })] } });
    expect(await specs.validateAsync(broken)).toEqual(specs.validate(broken));
    expect((await specs.validateAsync(broken)).ok).toBe(false);
    expect(await specs.validateAsync(wideSpec("huge", 40, 101))).toEqual({ ok: true, issues: [] });
    expect(await specs.list()).toEqual([]);
  }, 60_000);
});

describe("SpecService.compile", () => {
  it("compiles a revision once and serves it from the cache, even when its YAML no longer reads", async () => {
    using temp = new TempDatabase();
    const specs = new SpecService(new SqliteSpecStore(temp.db));
    const { specId } = await specs.save(MAP_REDUCE);
    const first = await specs.compile(await specs.resolve(specId));
    breakEveryYaml(temp.db);
    // Synchronous on SQLite with the revision cached: what a create pays no microtask for.
    expect(ready(specs.compile(ready(specs.resolve("map-reduce"))))).toBe(first);
    expect(ready(specs.compile(ready(specs.resolve(specId)), first.graph.nodeIdMap))).toBe(first);
    expect(ready(specs.resolveCompiled("map-reduce"))).toEqual({ head: expect.objectContaining({ specId }), compiled: first });
  });

  it("compiles a revision saved by another process on first use", async () => {
    using temp = new TempDatabase();
    const { specId } = await new SpecService(new SqliteSpecStore(temp.db)).save(MAP_REDUCE);
    const specs = new SpecService(new SqliteSpecStore(temp.db));
    const compiled = await specs.compile(await specs.resolve(specId));
    expect(compiled.graph.nodeNames()).toContain("reduce");
    expect(await specs.compile(await specs.resolve(specId))).toBe(compiled);
  });

  it("re-binds another instance's node ids as compiling with them does", async () => {
    const specs = new SpecService(new InMemorySpecStore());
    const { specId } = await specs.save(MAP_REDUCE);
    const foreign = parseSpecYaml(MAP_REDUCE).graph.nodeIdMap; // an instance created before the cache (or elsewhere)
    const rebound = await specs.compile(await specs.resolve(specId), foreign);
    expect(rebound.graph.nodeIdMap).toEqual(foreign);
    expect(rebound.graph.nodeIdMap).toEqual(parseSpecYaml(MAP_REDUCE, { nodeIdMap: foreign }).graph.nodeIdMap);
    expect((await specs.compile(await specs.resolve(specId))).graph.nodeIdMap).not.toEqual(foreign);
  });

  it("builds the JSON Schema once", async () => {
    const specs = new SpecService(new InMemorySpecStore());
    const schema = specs.jsonSchema();
    expect(JSON.stringify(schema)).toContain('"fan_out"');
    expect(specs.jsonSchema()).toBe(schema);
  });

  it("answers not found for an unknown spec and a located error for one that does not compile", async () => {
    const specs = new SpecService(new InMemorySpecStore());
    expect(() => specs.resolve("nope")).toThrow(/not found|nope/);
    expect(() => specs.save("name: x\nnodes: [")).toThrow(); // before any store is asked
  });
});

describe("runs sharing one compiled revision", () => {
  it("run concurrently to the right results", async () => {
    await using t = testServices("sqlite");
    const { orchestrator, instances } = t.services;
    const words = (i: number) => Array.from({ length: 1 + (i % 5) }, (_, k) => "x".repeat(k + 1 + i));
    const created = await Promise.all(Array.from({ length: 30 }, (_, i) => orchestrator.create({ spec: "map-reduce", input: words(i) })));
    for (const [i, c] of created.entries()) {
      expect((await t.settled(c.instanceId)).status).toBe("completed");
      const view = await instances.get({ instanceId: c.instanceId });
      expect(view.summary.result?.map((p) => p.content)).toEqual([words(i).join("").length]);
    }
  });
});

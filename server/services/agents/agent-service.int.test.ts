import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { AgentService } from "./agent-service";
import { SqliteAgentStore } from "./sqlite-agent-store";
import { createBuiltinToolCatalog } from "./builtin-tool-catalog";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function service(db: TempDatabase) {
  const catalog = createBuiltinToolCatalog({ modex: () => { throw new Error("unused"); }, fetchAllowedHosts: [] });
  return new AgentService(new SqliteAgentStore(db.db), catalog);
}
const coder = (instructions = "Write it.") => `# a comment\nname: coder\ndescription: Writes code.\ninstructions: ${instructions}\ntools: [todo_write]\n`;

describe("AgentService on SQLite", () => {
  it("saveIfChanged: the same content (comments and defaults aside) is one revision; a change is a new one", async () => {
    using db = new TempDatabase();
    const agents = service(db);
    const first = await agents.save(coder());
    expect(first).toMatchObject({ name: "coder", created: true });
    expect(agents.save(`name: coder\ndescription: Writes code.\ninstructions: Write it.\ntools: [todo_write]\nlimits: { max_iterations: 25 }\n`)).toEqual({ ...first, created: false });
    const second = await agents.save(coder("Write it well."));
    expect(second.created).toBe(true);
    expect((await agents.history("coder")).map((r) => r.agentId)).toEqual([second.agentId, first.agentId]);
    expect(await agents.get("coder")).toMatchObject({ agentId: second.agentId, description: "Writes code.", tools: ["todo_write"], yaml: coder("Write it well.") });
    expect((await agents.get(first.agentId)).yaml).toBe(coder());
    // Committed: a second connection's service reads them.
    expect((await service(db).list()).map((a) => a.name)).toEqual(["coder"]);
  });

  it("revisionOf: the latest or one revision of a name with its YAML; another agent's revision is not found; sizes in bytes", async () => {
    using db = new TempDatabase();
    const agents = service(db);
    const first = await agents.save(coder("Écris-le."));
    const second = await agents.save(coder("Write it well."));
    const reviewer = await agents.save("name: reviewer\ndescription: Reviews.\ninstructions: Review.\n");
    expect(await agents.revisionOf("coder")).toMatchObject({ agentId: second.agentId, yaml: coder("Write it well.") });
    expect(await agents.revisionOf("coder", first.agentId)).toMatchObject({ agentId: first.agentId, yaml: coder("Écris-le."), bytes: Buffer.byteLength(coder("Écris-le.")) });
    await expect(agents.revisionOf("coder", reviewer.agentId)).rejects.toThrow(expect.objectContaining({ code: "NOT_FOUND", message: `agent coder revision ${reviewer.agentId} not found` }));
    await expect(agents.revisionOf("nobody")).rejects.toThrow(expect.objectContaining({ code: "NOT_FOUND" }));
    // "É" is two bytes: the size is the YAML's UTF-8 length, as a download of it would be.
    expect((await agents.history("coder")).map((r) => r.bytes)).toEqual([coder("Write it well.").length, coder("Écris-le.").length + 1]);
  });

  it("refuses an invalid definition with located issues, and a name that is not the URL's", async () => {
    using db = new TempDatabase();
    const agents = service(db);
    expect(() => agents.save("name: coder\ndescription: x\ninstructions: y\ntools: [nope]\n")).toThrow(
      expect.objectContaining({ code: "INVALID_SPEC", details: { issues: [expect.objectContaining({ pathText: "tools[0]", line: 4, column: 9 })] } }),
    );
    expect(() => agents.save(coder(), "reviewer")).toThrow(expect.objectContaining({ code: "BAD_REQUEST" }));
    await expect(agents.get("nobody")).rejects.toThrow(expect.objectContaining({ code: "NOT_FOUND" }));
    expect(await agents.list()).toEqual([]);
  });

  it("loads a folder at start-up: good files saved once, a bad one reported, never fatal", () => {
    using db = new TempDatabase();
    const dir = mkdtempSync(path.join(tmpdir(), "modex-agents-"));
    dirs.push(dir);
    writeFileSync(path.join(dir, "coder.yml"), coder());
    writeFileSync(path.join(dir, "broken.yml"), "name: broken\n");
    const agents = service(db);
    expect(agents.loadDirectory(dir)).toMatchObject({ loaded: ["coder"], created: ["coder"], failed: [{ file: "broken.yml", message: expect.stringContaining("missing") }] });
    expect(agents.loadDirectory(dir)).toMatchObject({ loaded: ["coder"], created: [] });
    expect(agents.loadDirectory(path.join(dir, "missing"))).toEqual({ loaded: [], created: [], failed: [] });
  });

  it("a restart's folder load keeps a revision saved since as the latest; a changed file is saved", async () => {
    using db = new TempDatabase();
    const dir = mkdtempSync(path.join(tmpdir(), "modex-agents-"));
    dirs.push(dir);
    writeFileSync(path.join(dir, "coder.yml"), coder());
    expect(service(db).loadDirectory(dir)).toMatchObject({ loaded: ["coder"], created: ["coder"] });
    const edited = await service(db).save(coder("Write it well."));
    // The next start (a new service on the same database) reads the unchanged file: the edit stays.
    const restarted = service(db);
    expect(restarted.loadDirectory(dir)).toMatchObject({ loaded: ["coder"], created: [] });
    expect(restarted.find("coder")?.record.agentId).toBe(edited.agentId);
    expect(await restarted.history("coder")).toHaveLength(2);
    // A file changed on disk is new content: saved as the latest.
    writeFileSync(path.join(dir, "coder.yml"), coder("Write it in Rust."));
    expect(restarted.loadDirectory(dir)).toMatchObject({ loaded: ["coder"], created: ["coder"] });
    expect((await restarted.get("coder")).yaml).toBe(coder("Write it in Rust."));
  });
});

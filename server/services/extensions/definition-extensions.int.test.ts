import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { TempDatabase } from "@/server/db/testing/temp-database";
import { startAppServices } from "../app-services";
import { testServices } from "../testing/test-services";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A config/mcp folder with one stdio server named `name` (never started here). */
function mcpDir(name: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), "modex-mcp-"));
  dirs.push(dir);
  writeFileSync(path.join(dir, `${name}.yml`), `name: ${name}\ntransport: stdio\ncommand: node\nargs: [-e, "process.exit(1)"]\n`);
  return dir;
}

describe("start-up with stored agent definitions", () => {
  it("starts when a saved agent names the tool of an MCP server no longer configured, and lists that agent", async () => {
    using temp = new TempDatabase();
    {
      await using before = testServices("sqlite", { mcpDir: mcpDir("fetcher") }, { db: temp.db });
      await before.services.agents.save("name: scraper\ndescription: Fetches pages.\ninstructions: Fetch.\ntools: [fetcher__get]\n");
    }
    // The server is restarted without that MCP server (config/mcp changed).
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      await using after = testServices("sqlite", { mcpDir: mcpDir("other") }, { db: temp.db });
      await expect(startAppServices(after.services, { recover: false })).resolves.toMatchObject({ crashed: [] });
      expect((await after.services.agents.list()).map((a) => a.name)).toContain("scraper");
      expect(warn).toHaveBeenCalledWith(expect.stringMatching(/agent scraper does not validate with this configuration .*no MCP server "fetcher"/));
    } finally {
      warn.mockRestore();
    }
  });
});

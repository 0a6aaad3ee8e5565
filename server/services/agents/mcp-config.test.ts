import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isSpecError } from "@/server/graph/spec/spec-errors";
import { loadMcpDirectory, readMcpServerYaml } from "./mcp-config";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function issuesOf(yaml: string) {
  try {
    readMcpServerYaml(yaml);
  } catch (error) {
    if (isSpecError(error)) return error.issues.map((i) => `${i.line}:${i.column} ${i.pathText}: ${i.message}`);
    throw error;
  }
  return [];
}

describe("MCP server configs (config/mcp/*.yml)", () => {
  it("a stdio server: command, args, env, cwd, with the defaults spelled out", () => {
    const config = readMcpServerYaml("name: everything\ntransport: stdio\ncommand: npx\nargs: [-y, '@modelcontextprotocol/server-everything']\nenv: { LOG_LEVEL: debug }\n");
    expect(config).toEqual({
      name: "everything",
      transport: "stdio",
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-everything"],
      env: { LOG_LEVEL: "debug" },
      timeout_seconds: 60,
      startup_timeout_seconds: 30,
      approval: "unless_read_only",
    });
  });

  it("an HTTP server: url and headers", () => {
    const config = readMcpServerYaml("name: remote\ntransport: http\nurl: https://mcp.example.com/mcp\nheaders:\n  Authorization: Bearer abc\ntimeout_seconds: 5\n");
    expect(config).toMatchObject({ transport: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer abc" }, timeout_seconds: 5 });
  });

  it("every problem is located at its line and column", () => {
    expect(issuesOf("name: bad_name\ntransport: stdio\ncommand: node\nargs: [1]\n")).toEqual([
      "1:7 name: a letter, then letters, digits or - (at most 32)",
      expect.stringMatching(/^4:8 args\[0\]: .*string/),
    ]);
    expect(issuesOf("name: x\ntransport: http\nurl: ftp://example.com\ncommand: node\n")).toEqual([
      expect.stringMatching(/^3:6 url: /),
      "4:1 command: unknown key \"command\"",
    ]);
    expect(issuesOf("name: x\ntransport: pigeon\n")[0]).toMatch(/^2:12 transport: /);
    expect(issuesOf("name: x\ntransport: stdio\ncommand: [unclosed\n")[0]).toMatch(/^\d+:\d+ : /);
  });

  it("a folder: each file one server; a bad file or a name taken twice is reported and skipped, the rest load", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "modex-mcp-"));
    dirs.push(dir);
    writeFileSync(path.join(dir, "a.yml"), "name: one\ntransport: stdio\ncommand: node\n");
    writeFileSync(path.join(dir, "b.yaml"), "name: one\ntransport: stdio\ncommand: node\n");
    writeFileSync(path.join(dir, "c.yml"), "name: two\ntransport: stdio\n");
    writeFileSync(path.join(dir, "notes.txt"), "ignored");
    const report = loadMcpDirectory(dir);
    expect(report.servers.map((s) => s.name)).toEqual(["one"]);
    expect(report.failed).toEqual([
      { file: "b.yaml", message: 'name (line 1, column 7): another file already declares an MCP server named "one"' },
      { file: "c.yml", message: expect.stringMatching(/^command \(line \d+, column \d+\): /) },
    ]);
    expect(loadMcpDirectory(path.join(dir, "missing"))).toEqual({ servers: [], failed: [] });
  });

  it("several bad files: each is reported, with every one of its problems, and a good one still loads", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "modex-mcp-"));
    dirs.push(dir);
    writeFileSync(path.join(dir, "a.yml"), "name: a_b\ntransport: stdio\ncommand: 3\nargs: [1]\n");
    writeFileSync(path.join(dir, "b.yml"), "name: b\ntransport: http\nurl: ftp://x\nbogus: 1\n");
    writeFileSync(path.join(dir, "c.yml"), "name: c\ntransport: [\n");
    writeFileSync(path.join(dir, "d.yml"), "name: d\ntransport: stdio\ncommand: node\n");
    const report = loadMcpDirectory(dir);
    expect(report.servers.map((s) => s.name)).toEqual(["d"]);
    expect(report.failed.map((f) => f.file)).toEqual(["a.yml", "b.yml", "c.yml"]);
    const [a, b, c] = report.failed.map((f) => f.message.split("; "));
    expect(a).toEqual([
      "name (line 1, column 7): a letter, then letters, digits or - (at most 32)",
      expect.stringMatching(/^command \(line 3, column 10\): .*string/),
      expect.stringMatching(/^args\[0\] \(line 4, column 8\): .*string/),
    ]);
    expect(b).toEqual([expect.stringMatching(/^url \(line 3, column 6\): /), 'bogus (line 4, column 1): unknown key "bogus"']);
    expect(c).toHaveLength(1);
  });
});

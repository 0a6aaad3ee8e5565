import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { lockDataDir, prepareDataDir } from "./data-dir-lock";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const fresh = () => {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), "modex-datadir-")), "data");
  dirs.push(path.dirname(dir));
  return dir;
};

describe("the data directory", () => {
  it("is created and checked by writing to it, leaving nothing behind but the lock's files", () => {
    const dir = fresh();
    prepareDataDir(dir);
    expect(readdirSync(dir)).toEqual([]);
    const lock = lockDataDir(dir);
    try {
      expect(readdirSync(dir).filter((f) => !f.startsWith("modex.lock"))).toEqual([]);
    } finally {
      lock.release();
    }
  });

  it("is checked by two processes at the same moment without either failing (each removes only its own probe)", async () => {
    const dir = fresh();
    prepareDataDir(dir);
    // Two servers started together both check the directory before the lock refuses one of them.
    const script = `import { prepareDataDir } from ${JSON.stringify(path.join(import.meta.dirname, "data-dir-lock.ts"))};
      for (let i = 0; i < 3000; i++) prepareDataDir(${JSON.stringify(dir)});`;
    const run = () => promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { timeout: 30_000 });
    await expect(Promise.all([run(), run()])).resolves.toHaveLength(2);
    expect(readdirSync(dir)).toEqual([]);
  }, 40_000);

  it("that is a file is refused, naming the variable and the path", () => {
    const file = path.join(path.dirname(fresh()), "a-file");
    writeFileSync(file, "not a directory");
    expect(() => prepareDataDir(file)).toThrow(`cannot use the data directory ${file} (MODEX_DATA_DIR): it is a file, not a directory`);
    expect(() => prepareDataDir(path.join(file, "data"))).toThrow(`cannot use the data directory ${path.join(file, "data")} (MODEX_DATA_DIR): ENOTDIR`);
  });

  it("where no directory can be made (/proc) is refused at once, not retried forever", async () => {
    // In a child process: Node's recursive mkdir loops there synchronously, which no test timeout stops.
    const script = `import { prepareDataDir } from ${JSON.stringify(path.join(import.meta.dirname, "data-dir-lock.ts"))};
      try { prepareDataDir("/proc/modex-data"); } catch (e) { console.log(e.message); process.exitCode = 3; }`;
    const child = promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { timeout: 15_000 });
    await expect(child).rejects.toMatchObject({ code: 3, stdout: expect.stringContaining("cannot use the data directory /proc/modex-data (MODEX_DATA_DIR): ENOENT") });
  }, 20_000);

  it("is refused while another process holds it, naming the holder", () => {
    const dir = fresh();
    const lock = lockDataDir(dir);
    try {
      expect(() => lockDataDir(dir, 200)).toThrow(/another Modex server holds the data directory .* \(process \d+ on /);
    } finally {
      lock.release();
    }
  });
});

import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
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

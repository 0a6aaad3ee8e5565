import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { openGraphDatabase } from "../server/db/graph-database";
import { SpecService } from "../server/services/spec-service";
import { SqliteSpecStore } from "../server/services/sqlite-spec-store";
import { median, report } from "./measure";
import { wideSpec } from "./wide-spec.mjs";

/**
 * How long a 20,000-node save (bench:load's large spec, 2.1 MB of YAML) holds this thread, in-process on
 * SQLite: `spec_save_busy`, the event loop's active time during `saveAsync` (the YAML is read on a
 * worker; validation, compile, hash and insert run here); `spec_save_longest_hold`, the longest stretch
 * without a turn of the event loop (what a health check waits at worst); `spec_save_wall`. Medians of
 * BENCH_SAVES saves (default 5) after two warm-up saves. `npm run bench:save`; on a noisy machine,
 * alternate the variants.
 */
const dir = mkdtempSync(path.join(tmpdir(), "modex-spec-save-"));
const db = openGraphDatabase(path.join(dir, "modex.db"));
const specs = new SpecService(new SqliteSpecStore(db));
const saves = Number(process.env.BENCH_SAVES ?? 5);
const busy: number[] = [];
const longest: number[] = [];
const wall: number[] = [];
try {
  for (let i = 0; i < saves + 2; i++) {
    const yaml = wideSpec({ name: "big", chains: 198, depth: 101, version: String(i) }); // every save inserts
    const delay = monitorEventLoopDelay({ resolution: 1 });
    const before = performance.eventLoopUtilization();
    delay.enable();
    const t0 = performance.now();
    await specs.saveAsync(yaml);
    const took = performance.now() - t0;
    await new Promise((resolve) => setTimeout(resolve, 5)); // the last stretch is sampled after it ends
    delay.disable();
    if (i < 2) continue;
    busy.push(performance.eventLoopUtilization(before).active);
    longest.push(delay.max / 1e6);
    wall.push(took);
  }
} finally {
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
report("spec_save_busy", median(busy), "ms");
report("spec_save_longest_hold", median(longest), "ms");
report("spec_save_longest_hold_share", median(longest.map((l, i) => (100 * l) / busy[i])), "%");
report("spec_save_wall", median(wall), "ms");
process.exit(0); // the YAML worker stops when idle; do not wait for it

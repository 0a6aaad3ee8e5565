import { runDurableBench } from "./durable-bench";
import { report } from "./measure";

// Durable SQLite figures; better-sqlite3's page cache is native memory, so this process is measured apart.
await runDurableBench();
report("peak_rss_durable_process", process.resourceUsage().maxRSS / 1024, "MiB");

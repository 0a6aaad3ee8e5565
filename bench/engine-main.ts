import { runEngineBench } from "./engine-bench";
import { report } from "./measure";

// The in-memory engine, in a process of its own so its peak RSS is the engine's.
await runEngineBench();
report("peak_rss_engine_process", process.resourceUsage().maxRSS / 1024, "MiB");

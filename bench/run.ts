import { runEngineBench } from "./engine-bench";
import { report } from "./measure";

await runEngineBench();
report("peak_rss", process.resourceUsage().maxRSS / 1024, "MiB");

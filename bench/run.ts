import { runDurableBench } from "./durable-bench";
import { runEngineBench } from "./engine-bench";
import { report } from "./measure";

await runEngineBench();
await runDurableBench();
report("peak_rss", process.resourceUsage().maxRSS / 1024, "MiB");

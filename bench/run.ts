import { measureReactIterationOverhead } from "../server/agent/bench/react-iteration-bench";
import { runDurableBench } from "./durable-bench";
import { runEngineBench } from "./engine-bench";
import { report } from "./measure";

await runEngineBench();
await runDurableBench();
report("react_iteration_overhead_full_spans", await measureReactIterationOverhead(), "us");
report("peak_rss", process.resourceUsage().maxRSS / 1024, "MiB");

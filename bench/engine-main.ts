import { measureReactIterationOverhead } from "../server/agent/bench/react-iteration-bench";
import { runEngineBench } from "./engine-bench";
import { report } from "./measure";

// The in-memory engine and the agent runtime, in a process of their own so its peak RSS is theirs.
await runEngineBench();
report("react_iteration_overhead_full_spans", await measureReactIterationOverhead(), "us");
report("peak_rss_engine_process", process.resourceUsage().maxRSS / 1024, "MiB");

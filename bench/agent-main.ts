import { measureReactIterationOverhead } from "../server/agent/bench/react-iteration-bench";
import { measureExtensionOverhead } from "../server/agent/extensions/extensions-bench";
import { report } from "./measure";

// The agent runtime's figure (its own issue), in a process of its own so each peak RSS is one layer's.
report("react_iteration_overhead_full_spans", await measureReactIterationOverhead(), "us");
// Ten registered no-op extensions (a method at each of the 25 points) against none: budget ≤ 100 µs per iteration.
const extensions = await measureExtensionOverhead();
report("extensions_10_noop_per_iteration_cpu", extensions.cpuUs, "us");
report("extensions_10_noop_per_iteration_wall", extensions.wallUs, "us");
report("peak_rss_agent_process", process.resourceUsage().maxRSS / 1024, "MiB");

import { measureReactIterationOverhead } from "../server/agent/bench/react-iteration-bench";
import { report } from "./measure";

// The agent runtime's figure (its own issue), in a process of its own so each peak RSS is one layer's.
report("react_iteration_overhead_full_spans", await measureReactIterationOverhead(), "us");
report("peak_rss_agent_process", process.resourceUsage().maxRSS / 1024, "MiB");

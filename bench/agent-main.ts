import { measureReactIterationOverhead } from "../server/agent/bench/react-iteration-bench";
import { measureAgentFanOut, measureAgentNodeOverhead } from "./agent-node-bench";
import { measureExtensionOverhead } from "../server/agent/extensions/extensions-bench";
import { report } from "./measure";

// The agent runtime's figures (their own issues), in a process of its own so each peak RSS is one layer's.
report("react_iteration_overhead_full_spans", await measureReactIterationOverhead(), "us");
// Agents as graph nodes on a real SQLite file: memory and events persisted (budget ≤ 2 ms per invocation).
const node = await measureAgentNodeOverhead();
report("agent_node_invocation_durable", node.perInvocationMs, "ms");
report("agent_node_overhead_vs_function_node", node.overheadMs, "ms");
report("agent_node_invocation_durable_cpu", node.cpuPerInvocationMs, "ms");
// 1,000 agent nodes fanned out, each model call answered after 20 ms (two calls per node; budget ≤ 1.5 s).
const fan = await measureAgentFanOut();
report("agent_fan_out_1000_model_20ms", fan.wallMs, "ms");
report("agent_fan_out_1000_model_20ms_cpu", fan.cpuMs, "ms");
// Ten registered no-op extensions (a method at each of the 25 points) against none: budget ≤ 100 µs per iteration.
const extensions = await measureExtensionOverhead();
report("extensions_10_noop_per_iteration_cpu", extensions.cpuUs, "us");
report("extensions_10_noop_per_iteration_wall", extensions.wallUs, "us");
report("peak_rss_agent_process", process.resourceUsage().maxRSS / 1024, "MiB");

import { measureReactIterationOverhead } from "../server/agent/bench/react-iteration-bench";
import { measureAgentFanOut, measureAgentNodeOverhead } from "./agent-node-bench";
import { measureExtensionOverhead } from "../server/agent/extensions/extensions-bench";
import { report } from "./measure";
import { measureTokenBudgetCost } from "./token-budget-bench";

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
// token_budget with per_instance totals, per model call: kept in memory (lost on a restart) and on SQLite.
const budget = await measureTokenBudgetCost();
report("token_budget_memory_per_model_call_cpu", budget.memoryCpuUs, "us");
report("token_budget_sqlite_per_model_call_cpu", budget.sqliteCpuUs, "us");
report("token_budget_sqlite_per_model_call_wall", budget.sqliteWallUs, "us");
report("peak_rss_agent_process", process.resourceUsage().maxRSS / 1024, "MiB");

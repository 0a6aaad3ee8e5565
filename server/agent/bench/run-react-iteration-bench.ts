import { measureReactIterationOverhead } from "./react-iteration-bench";

// Standalone: npx tsx server/agent/bench/run-react-iteration-bench.ts
const perIteration = await measureReactIterationOverhead();
console.log(`react_iteration_overhead_full_spans ${perIteration.toFixed(1)} us`);

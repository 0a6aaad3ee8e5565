/**
 * A static picture of a running graph for the home page: what an instance view looks like, drawn in SVG
 * (no client JavaScript). One delivery travels along the plan → draft edge.
 */

type NodeState = "done" | "running" | "waiting";

interface PictureNode {
  id: string;
  label: string;
  kind: string;
  x: number;
  y: number;
  state: NodeState;
}

const W = 92;
const H = 44;

const NODES: PictureNode[] = [
  { id: "start", label: "start", kind: "trigger", x: 8, y: 100, state: "done" },
  { id: "plan", label: "plan", kind: "agent", x: 136, y: 100, state: "done" },
  { id: "research", label: "research", kind: "tool", x: 264, y: 20, state: "done" },
  { id: "draft", label: "draft", kind: "agent", x: 264, y: 180, state: "running" },
  { id: "review", label: "review", kind: "human", x: 392, y: 100, state: "waiting" },
  { id: "publish", label: "publish", kind: "tool", x: 520, y: 100, state: "waiting" },
];

const EDGES: Array<[from: string, to: string]> = [
  ["start", "plan"],
  ["plan", "research"],
  ["plan", "draft"],
  ["research", "review"],
  ["draft", "review"],
  ["review", "publish"],
];

const STATE_DOT: Record<NodeState, string> = {
  done: "fill-emerald-400",
  running: "fill-indigo-400",
  waiting: "fill-zinc-600",
};

function byId(id: string): PictureNode {
  const node = NODES.find((n) => n.id === id);
  if (!node) throw new Error(`hero graph: unknown node ${id}`);
  return node;
}

function edgePath(from: PictureNode, to: PictureNode): string {
  const [x1, y1, x2, y2] = [from.x + W, from.y + H / 2, to.x, to.y + H / 2];
  const bend = (x2 - x1) / 2;
  return `M${x1} ${y1} C${x1 + bend} ${y1} ${x2 - bend} ${y2} ${x2} ${y2}`;
}

export function HeroGraph() {
  return (
    <svg viewBox="0 0 620 244" role="img" aria-label="A workflow graph with one agent running" className="h-auto w-full">
      {EDGES.map(([from, to]) => {
        const source = byId(from);
        const live = source.state === "done" && byId(to).state === "running";
        return (
          <path
            key={`${from}-${to}`}
            id={`edge-${from}-${to}`}
            d={edgePath(source, byId(to))}
            fill="none"
            strokeWidth={1.5}
            className={live ? "stroke-indigo-400" : source.state === "done" ? "stroke-zinc-500" : "stroke-zinc-700"}
            strokeDasharray={source.state === "waiting" ? "4 4" : undefined}
          />
        );
      })}
      <circle r={4} className="fill-indigo-300">
        <animateMotion dur="2.4s" repeatCount="indefinite">
          <mpath href="#edge-plan-draft" />
        </animateMotion>
      </circle>
      {NODES.map((node) => (
        <g key={node.id} transform={`translate(${node.x} ${node.y})`}>
          <rect
            width={W}
            height={H}
            rx={10}
            strokeWidth={1}
            className={
              node.state === "running" ? "fill-indigo-950 stroke-indigo-400" : "fill-zinc-900 stroke-white/15"
            }
          />
          <circle cx={14} cy={H / 2} r={4} className={STATE_DOT[node.state]}>
            {node.state === "running" && (
              <animate attributeName="opacity" values="1;0.3;1" dur="1.2s" repeatCount="indefinite" />
            )}
          </circle>
          <text x={26} y={19} className="fill-zinc-100 text-[13px] font-medium">
            {node.label}
          </text>
          <text x={26} y={34} className="fill-zinc-500 text-[10px] uppercase tracking-wider">
            {node.kind}
          </text>
        </g>
      ))}
    </svg>
  );
}

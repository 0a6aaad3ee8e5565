/**
 * The dot where edges meet a node. Not React Flow's `<Handle>`: the canvas is read-only, the node
 * objects carry their handle positions (topology-canvas.tsx), and each `<Handle>` subscribes to the
 * flow's store, so 400 of them ran a selector on every update.
 */
export function Port({ side, className }: { side: "left" | "right"; className: string }) {
  const at = side === "left" ? "left-0 -translate-x-1/2" : "right-0 translate-x-1/2";
  return <span aria-hidden="true" className={`pointer-events-none absolute top-1/2 h-1.5 w-1.5 -translate-y-1/2 rounded-full ${at} ${className}`} />;
}

/**
 * The dot where edges meet a node. Not React Flow's `<Handle>`: the canvas is read-only, the node
 * objects carry their handle positions (topology-canvas.tsx), and each `<Handle>` subscribes to the
 * flow's store, so 400 of them ran a selector on every update.
 *
 * React Flow still measures a node once it mounts (its ResizeObserver's first callback) and then takes
 * the handles from the DOM: elements with the class `source` or `target` and a `data-handlepos`. So the
 * dot carries them; without them the measured node had no handles, and no edge touching a node that
 * had not been replaced since it mounted was drawn (in the preview: none until ELK's layout moved them).
 */
export function Port({ side, className }: { side: "left" | "right"; className: string }) {
  const at = side === "left" ? "target left-0 -translate-x-1/2" : "source right-0 translate-x-1/2";
  return (
    <span
      aria-hidden="true"
      data-handlepos={side}
      className={`pointer-events-none absolute top-1/2 h-1.5 w-1.5 -translate-y-1/2 rounded-full ${at} ${className}`}
    />
  );
}

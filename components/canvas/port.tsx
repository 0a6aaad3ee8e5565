/**
 * The dot where edges meet a node. Not React Flow's `<Handle>`: the canvas is read-only, the node
 * objects carry their handle positions (topology-canvas.tsx), and each `<Handle>` subscribes to the
 * flow's store, so 400 of them ran a selector on every update.
 *
 * React Flow still measures a node once it mounts (its ResizeObserver's first callback) and then takes
 * the handles from the DOM: elements with the class `source` or `target` and a `data-handlepos`. So the
 * dot carries them; without them the measured node had no handles, and no edge touching a node that
 * had not been replaced since it mounted was drawn (in the preview: none until ELK's layout moved them).
 *
 * Positioned against React Flow's node wrapper (the card inside it is not positioned) and with no
 * transform: every positioned or transformed element is a paint layer of its own, and Chrome
 * re-layerizes every paint chunk of the page in each frame that repaints anything (a keystroke in the
 * editor). The card and its two ports were ~600 such layers in a 200-node preview; without them that
 * step of a keystroke's frame takes about a quarter less. The dot's centre is on the inner edge of the
 * card's 1 px border: 3 px radius, so 2 px outside the box.
 */
export function Port({ side, className }: { side: PortSide; className: string }) {
  return <span aria-hidden="true" data-handlepos={side} className={`pointer-events-none absolute h-1.5 w-1.5 rounded-full ${AT[side]} ${className}`} />;
}

export type PortSide = "left" | "right" | "top" | "bottom";

const AT: Record<PortSide, string> = {
  left: "target left-[-2px] top-[calc(50%-3px)]",
  right: "source right-[-2px] top-[calc(50%-3px)]",
  top: "target top-[-2px] left-[calc(50%-3px)]",
  bottom: "source bottom-[-2px] left-[calc(50%-3px)]",
};

/** Where edges enter and leave a node: its sides, or top and bottom in a graph laid out top to bottom. */
export function portSides(vertical: boolean | undefined): { into: PortSide; out: PortSide } {
  return vertical ? { into: "top", out: "bottom" } : { into: "left", out: "right" };
}

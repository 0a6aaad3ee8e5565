import type { Point } from "@/components/canvas/elk-layout";
import { pointAlong } from "@/components/canvas/polyline";

/**
 * Animates deliveries as dots travelling along their edge, source → target. Plain TypeScript over
 * SVG elements it creates in a group the canvas gives it; one requestAnimationFrame loop runs only
 * while a pulse is in flight, so a thousand events never mean a thousand React renders.
 */

export interface PulseOptions {
  readonly durationMs?: number;
  /** Who asked for the pulse (a deliver id), echoed to `onShown`. */
  readonly key?: string;
}

interface Flight {
  readonly el: SVGCircleElement;
  readonly points: readonly Point[];
  readonly start: number;
  readonly duration: number;
}

const SVG_NS = "http://www.w3.org/2000/svg";

export class PulseAnimator {
  private group: SVGGElement | null = null;
  private routes: ReadonlyMap<string, readonly Point[]> = new Map();
  private flights: Flight[] = [];
  private raf = 0;
  /** Pulses put on screen since creation. */
  shown = 0;
  /** Called when a pulse is first drawn (for the deliver-to-pulse benchmark and tests). */
  onShown: ((info: { edgeId: string; key?: string; at: number }) => void) | null = null;

  attach(group: SVGGElement): void {
    this.group = group;
  }

  detach(): void {
    this.clear();
    this.group = null;
  }

  setRoutes(routes: ReadonlyMap<string, readonly Point[]>): void {
    this.routes = routes;
  }

  hasRoute(edgeId: string): boolean {
    return this.routes.has(edgeId);
  }

  /** Starts a pulse on an edge; false when the edge is not drawn (yet). */
  emit(edgeId: string, options: PulseOptions = {}): boolean {
    const points = this.routes.get(edgeId);
    if (!points || !this.group) return false;
    const el = document.createElementNS(SVG_NS, "circle");
    el.setAttribute("r", "5");
    el.setAttribute("class", "modex-pulse");
    el.setAttribute("data-testid", "pulse");
    el.setAttribute("data-edge", edgeId);
    const p = points[0];
    el.setAttribute("cx", String(p.x));
    el.setAttribute("cy", String(p.y));
    this.group.appendChild(el);
    this.flights.push({ el, points, start: performance.now(), duration: options.durationMs ?? 700 });
    this.shown += 1;
    this.group.ownerSVGElement?.setAttribute("data-pulses-shown", String(this.shown));
    this.onShown?.({ edgeId, key: options.key, at: performance.now() });
    if (!this.raf) this.raf = requestAnimationFrame(this.frame);
    return true;
  }

  clear(): void {
    for (const f of this.flights) f.el.remove();
    this.flights = [];
    if (this.raf) cancelAnimationFrame(this.raf);
    this.raf = 0;
  }

  private frame = (now: number): void => {
    const alive: Flight[] = [];
    for (const f of this.flights) {
      const t = (now - f.start) / f.duration;
      if (t >= 1) {
        f.el.remove();
        continue;
      }
      const eased = t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2;
      const p = pointAlong(f.points, eased);
      f.el.setAttribute("cx", p.x.toFixed(1));
      f.el.setAttribute("cy", p.y.toFixed(1));
      f.el.setAttribute("opacity", t > 0.85 ? ((1 - t) / 0.15).toFixed(2) : "1");
      alive.push(f);
    }
    this.flights = alive;
    this.raf = alive.length > 0 ? requestAnimationFrame(this.frame) : 0;
  };
}

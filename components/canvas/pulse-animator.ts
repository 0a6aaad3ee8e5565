import type { Point } from "@/shared/canvas/elk-layout";
import { pointAlong } from "@/components/canvas/polyline";

/**
 * Animates deliveries as dots travelling along their edge, source → target. Plain TypeScript over
 * elements it creates in a layer the canvas gives it. Each dot is an HTML element moved by a Web
 * Animation of its transform, which the compositor runs by itself: a pulse in flight costs the page's
 * main thread nothing per frame (no style, layout, paint or raster of the canvas), so the live events
 * that start pulses never queue behind the animation of earlier ones. A thousand events never mean a
 * thousand React renders either.
 */

export interface PulseOptions {
  readonly durationMs?: number;
  /** Who asked for the pulse (a deliver id), echoed to `onShown`. */
  readonly key?: string;
}

/** The dot's diameter (px, flow coordinates): it is centred on the edge. */
const SIZE = 12;
/** Keyframes per pulse: the eased path is sampled evenly in time, straight between samples. */
const SAMPLES = 24;
/** The pulse fades out over its last 15%. */
const FADE_FROM = 0.85;

const easeInOutQuad = (t: number): number => (t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2);

/** The keyframes of a pulse along `points`: a transform per sample, and the fade at the end. */
export function pulseKeyframes(points: readonly Point[]): Keyframe[] {
  const frames: Keyframe[] = [];
  const at = (t: number): Keyframe => {
    const p = pointAlong(points, easeInOutQuad(t));
    return { offset: t, transform: `translate(${(p.x - SIZE / 2).toFixed(1)}px, ${(p.y - SIZE / 2).toFixed(1)}px)`, opacity: t <= FADE_FROM ? 1 : (1 - t) / (1 - FADE_FROM) };
  };
  for (let i = 0; i <= SAMPLES; i++) {
    const t = i / SAMPLES;
    // The fade starts exactly where it should, between two samples.
    if (t > FADE_FROM && (i - 1) / SAMPLES < FADE_FROM) frames.push(at(FADE_FROM));
    frames.push(at(t));
  }
  return frames;
}

export class PulseAnimator {
  private layer: HTMLElement | null = null;
  private routes: ReadonlyMap<string, readonly Point[]> = new Map();
  private readonly flights = new Set<{ el: HTMLElement; animation: Animation | null; timer: ReturnType<typeof setTimeout> | null }>();
  /** Pulses put on screen since creation. */
  shown = 0;
  /** Called when a pulse is first drawn (for the deliver-to-pulse benchmark and tests). */
  onShown: ((info: { edgeId: string; key?: string; at: number }) => void) | null = null;

  attach(layer: HTMLElement): void {
    this.layer = layer;
  }

  detach(): void {
    this.clear();
    this.layer = null;
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
    const layer = this.layer;
    if (!points || points.length === 0 || !layer) return false;
    const duration = options.durationMs ?? 700;
    const el = document.createElement("div");
    el.className = "modex-pulse";
    el.setAttribute("data-testid", "pulse");
    el.setAttribute("data-edge", edgeId);
    const p = points[0];
    el.style.transform = `translate(${p.x - SIZE / 2}px, ${p.y - SIZE / 2}px)`;
    layer.appendChild(el);
    const flight = { el, animation: null as Animation | null, timer: null as ReturnType<typeof setTimeout> | null };
    const land = () => {
      el.remove();
      this.flights.delete(flight);
    };
    if (typeof el.animate === "function") {
      flight.animation = el.animate(pulseKeyframes(points), { duration, easing: "linear", fill: "forwards" });
      flight.animation.onfinish = land;
    } else {
      flight.timer = setTimeout(land, duration);
    }
    this.flights.add(flight);
    this.shown += 1;
    layer.setAttribute("data-pulses-shown", String(this.shown));
    this.onShown?.({ edgeId, key: options.key, at: performance.now() });
    return true;
  }

  clear(): void {
    for (const f of this.flights) {
      f.animation?.cancel();
      if (f.timer) clearTimeout(f.timer);
      f.el.remove();
    }
    this.flights.clear();
  }
}

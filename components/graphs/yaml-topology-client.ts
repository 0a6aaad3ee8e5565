import type { YamlTopologyResult } from "@/components/graphs/yaml-topology";

/** Full parses in a worker, one request at a time; an older answer than the latest request is dropped. */
export class YamlTopologyWorker {
  private worker: Worker | null = null;
  private seq = 0;
  private waiting = new Map<number, (r: YamlTopologyResult) => void>();

  parse(text: string): Promise<YamlTopologyResult> {
    this.worker ??= this.start();
    const id = ++this.seq;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.worker?.postMessage({ id, text });
    });
  }

  dispose(): void {
    this.worker?.terminate();
    this.worker = null;
    this.waiting.clear();
  }

  private start(): Worker {
    const w = new Worker(new URL("./yaml-topology.worker.ts", import.meta.url));
    w.onmessage = (e: MessageEvent<{ id: number; result: YamlTopologyResult }>) => {
      const resolve = this.waiting.get(e.data.id);
      this.waiting.delete(e.data.id);
      resolve?.(e.data.result);
    };
    return w;
  }
}

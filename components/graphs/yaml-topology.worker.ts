/// <reference lib="webworker" />
import { yamlToTopology } from "@/components/graphs/yaml-topology";

/**
 * The full YAML parse of the spec, off the main thread: it confirms the fast scan (or reports the
 * problem) without blocking typing. Request: { id, text }; answer: { id, result }.
 */
self.onmessage = (e: MessageEvent<{ id: number; text: string }>) => {
  const { id, text } = e.data;
  (self as unknown as Worker).postMessage({ id, result: yamlToTopology(text) });
};

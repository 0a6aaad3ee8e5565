import { trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";

/**
 * Registers the global OpenTelemetry tracer provider with an OTLP/HTTP exporter. The agent's span hooks
 * mirror every span to the global tracer, so once this runs they reach the collector as well as the
 * app database. Call once per process; `shutdown()` flushes what is still batched.
 */
export function installOtlpExport(options: { endpoint: string; serviceName?: string }): BasicTracerProvider {
  const exporter = new OTLPTraceExporter({ url: tracesUrl(options.endpoint) });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": options.serviceName ?? "modex" }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  trace.setGlobalTracerProvider(provider);
  return provider;
}

/** The OTLP convention: an endpoint is a base URL; traces go to `<base>/v1/traces`. */
export function tracesUrl(endpoint: string): string {
  return endpoint.endsWith("/v1/traces") ? endpoint : `${endpoint.replace(/\/+$/, "")}/v1/traces`;
}

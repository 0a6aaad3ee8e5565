import type { Metadata } from "next";
import { Suspense } from "react";
import { TraceView } from "@/components/traces/trace-view";

export const metadata: Metadata = { title: "Trace" };

/** /traces?session=<chat>&turn=<turn>: one chat turn's trace as a waterfall. */
export default function TracePage() {
  return (
    <Suspense>
      <TraceView />
    </Suspense>
  );
}

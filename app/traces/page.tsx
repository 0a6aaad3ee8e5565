import type { Metadata } from "next";
import { Suspense } from "react";
import { TracePage } from "@/components/traces/trace-page";

export const metadata: Metadata = { title: "Traces" };

/**
 * /traces: every finished agent turn (TraceList); /traces?session=<chat>&turn=<turn> (a chat turn) or
 * ?instance=&node=&turn= (an agent node's turn): that turn's trace as a waterfall (TraceView).
 */
export default function TracesPage() {
  return (
    <Suspense>
      <TracePage />
    </Suspense>
  );
}

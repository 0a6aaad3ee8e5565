"use client";

import { useSearchParams } from "next/navigation";
import { TraceList } from "@/components/traces/trace-list";
import { TraceView } from "@/components/traces/trace-view";

/** One turn's trace when the URL names a turn, else the list of turns. */
export function TracePage() {
  return useSearchParams().has("turn") ? <TraceView /> : <TraceList />;
}

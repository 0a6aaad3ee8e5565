import Link from "next/link";
import { DestinationCard } from "@/components/home/destination-card";
import { HeroGraph } from "@/components/home/hero-graph";
import { HomeRuns } from "@/components/home/home-runs";
import { PillarCard } from "@/components/home/pillar-card";

export default function HomePage() {
  return (
    <main className="mx-auto max-w-6xl px-6">
      <section className="grid items-center gap-12 py-16 lg:grid-cols-[1fr_1.1fr] lg:py-24">
        <div>
          <p className="text-sm font-medium text-indigo-300">Durable agent workflows</p>
          <h1 className="mt-3 text-4xl font-semibold leading-[1.1] tracking-tight text-white sm:text-5xl">
            Build, run and watch agent workflows as durable graphs.
          </h1>
          <p className="mt-5 max-w-xl text-base leading-7 text-zinc-400">
            Modex runs each workflow as a graph of agents, tools and human steps. Every step is saved before it
            is shown, so a run can be paused, answered, resumed or restarted after a crash without losing work,
            and you can follow it live, edge by edge.
          </p>
          <div className="mt-8 flex flex-wrap gap-3">
            <Link
              href="/graphs"
              className="rounded-lg bg-indigo-500 px-4 py-2 text-sm font-semibold text-on-accent shadow-sm transition-colors hover:bg-indigo-400"
            >
              Open graphs
            </Link>
            <Link
              href="/instances"
              className="rounded-lg border border-white/15 px-4 py-2 text-sm font-semibold text-zinc-200 transition-colors hover:bg-white/5"
            >
              See running instances
            </Link>
          </div>
        </div>
        {/* The user's own runs once there are any; until then, a picture of what a run looks like. */}
        <HomeRuns
          placeholder={
            <div className="rounded-2xl border border-white/10 bg-linear-to-b from-white/[0.04] to-transparent p-4 shadow-2xl shadow-indigo-950/40">
              <div className="mb-2 flex items-center justify-between px-1 text-xs text-zinc-500">
                <span className="font-mono">An example run (yours will show here)</span>
                <span className="inline-flex items-center gap-1.5 text-indigo-300">
                  <span className="h-1.5 w-1.5 animate-pulse rounded-full bg-indigo-400" aria-hidden="true" />
                  running
                </span>
              </div>
              <HeroGraph />
            </div>
          }
        />
      </section>

      <section aria-labelledby="layers" className="border-t border-white/10 py-16">
        <h2 id="layers" className="text-2xl font-semibold tracking-tight text-white">
          Two layers, one process
        </h2>
        <p className="mt-2 max-w-2xl text-sm leading-6 text-zinc-400">
          The engine knows nothing about agents; the agent runtime is built on top of it. Both run inside this
          app, on an embedded SQLite database.
        </p>
        <div className="mt-8 grid gap-6 md:grid-cols-2">
          <PillarCard
            eyebrow="Engine"
            title="Durable graph engine"
            points={[
              "Nodes, edges and deliveries persisted before they are announced",
              "Pause, stop, resume and answer a run from the UI, the API or the CLI",
              "Picks up where it left off after a restart",
            ]}
          >
            Executes a compiled workflow graph: schedules nodes as their inputs arrive and records every step.
          </PillarCard>
          <PillarCard
            eyebrow="Agents"
            title="Agent runtime"
            points={[
              "Reasoning-and-acting agents with tools, against any OpenAI-compatible model",
              "Hooks and interceptors to observe, guard or rewrite every call",
              "Traces for each agent step, ready for OpenTelemetry",
            ]}
          >
            Turns a node into an agent that thinks, calls tools and asks people for input when it must.
          </PillarCard>
        </div>
      </section>

      <section aria-labelledby="start" className="border-t border-white/10 py-16">
        <h2 id="start" className="text-2xl font-semibold tracking-tight text-white">
          Start here
        </h2>
        <div className="mt-8 grid gap-6 md:grid-cols-2 lg:grid-cols-3">
          <DestinationCard
            href="/graphs"
            title="Graphs"
            description="Write a workflow as YAML, see it laid out as a graph, and version it."
          />
          <DestinationCard
            href="/instances"
            title="Instances"
            description="Start a graph, follow each delivery live, and step in when a node needs you."
          />
          <DestinationCard
            href="/chat"
            title="Chat"
            description="Talk to an agent directly, approve the tools it wants to call, and pick up the conversation later."
          />
          <DestinationCard
            href="/agents"
            title="Agents"
            description="Define an agent's model, instructions and tools once, then use it in the chat or as a graph node."
          />
          <DestinationCard
            href="/triggers"
            title="Triggers"
            description="Start a graph on a schedule or from a webhook, and see when each one fires next."
          />
          <DestinationCard
            href="/cluster"
            title="Cluster"
            description="See the processes that serve the app and run its instances, their heartbeats and the work waiting for them."
          />
        </div>
      </section>

      <footer className="flex flex-wrap justify-between gap-2 border-t border-white/10 py-8 text-xs text-zinc-500">
        <span>Modex</span>
        <span>Data lives in an embedded SQLite database under MODEX_DATA_DIR.</span>
      </footer>
    </main>
  );
}

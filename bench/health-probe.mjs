// `GET /api/health` every HEALTH_EVERY_MS, at most HEALTH_IN_FLIGHT at once, from a process of its own
// (forked by load-bench.mjs), as a load balancer's checks come from another machine: in the process that
// also sends a burst's 200 creates, a probe's answer waits behind the client's own handling of 200 new
// connections and their answers (measured: 140–190 ms there against under 45 ms from here, same server).
// On "stop" it waits for the probes in flight and sends back their latencies (ms).
const [base, everyMs, maxInFlight, encoding] = process.argv.slice(2);
const headers = encoding ? { "accept-encoding": encoding } : {};
const latencies = [];
const inFlight = new Set();
const timer = setInterval(() => {
  if (inFlight.size >= Number(maxInFlight)) return;
  const t = performance.now();
  const p = fetch(`${base}/api/health`, { headers })
    .then((r) => r.arrayBuffer())
    .then(
      () => latencies.push(performance.now() - t),
      (error) => console.error(`a health probe failed: ${error.cause?.code ?? error.message}`),
    )
    .finally(() => inFlight.delete(p));
  inFlight.add(p);
}, Number(everyMs));

process.once("message", async () => {
  clearInterval(timer);
  await Promise.allSettled([...inFlight]);
  process.send(latencies, () => process.exit(0));
});
process.send("started");

// A server process stand-in for the crash test: opens the database file, starts one run of the spec
// given on the command line, prints the instance id, and keeps running until it is killed.
import { readFileSync } from "node:fs";
import { openGraphDatabase } from "@/server/db/graph-database";
import { createAppServices } from "../app-services";
import { AuthService } from "../auth-service";

const [file, specFile, command] = process.argv.slice(2);
const services = createAppServices({ db: openGraphDatabase(file), auth: new AuthService("crash-test-token-0123456789abcdefghij"), heartbeatMs: 100, drainWaitMs: 0 });
const { name } = await services.specs.save(readFileSync(specFile, "utf8"));
const { instanceId } = await services.orchestrator.create({ spec: name, input: "x" });
// `pause`/`stop`: asked once the first delay runs, answered while it drains (drain wait 0), then killed.
const asked = command === "pause" || command === "stop" ? await askWhileRunning(instanceId, command) : null;
process.stdout.write(`${JSON.stringify({ instanceId, pid: process.pid, asked })}\n`);
setInterval(() => {}, 1000);

async function askWhileRunning(instanceId: string, command: "pause" | "stop") {
  await new Promise((r) => setTimeout(r, 50));
  return command === "pause" ? services.control.pause(instanceId) : services.control.stop(instanceId);
}

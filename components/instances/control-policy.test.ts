import { expect, it } from "vitest";
import { controlAvailability } from "./control-policy";

it("queued work disables the command that would make it due again, with why; nothing else changes", () => {
  const paused = controlAvailability("paused", null);
  expect(paused.resume).toBeNull();
  const queued = controlAvailability("paused", null, { kind: "resume", since: 1 });
  expect(queued.resume).toMatch(/The resume was accepted and is queued: no worker has started the run yet/);
  expect({ ...queued, resume: null }).toEqual(paused);
  expect(controlAvailability("paused", "input", { kind: "answer", since: 1 }).resume).toMatch(/^The answer was accepted/);

  const completed = controlAvailability("completed", null, { kind: "reinvoke", since: 1 });
  expect(completed.reinvoke).toMatch(/^The new input was accepted and is queued/);
  expect(completed.deliver).toBeNull();

  // A deliver's new run is version N+1, as a reinvoke's; a recover's run is the crashed one's.
  const delivered = controlAvailability("completed", null, { kind: "deliver", since: 1 });
  expect(delivered.reinvoke).toMatch(/^The delivered message was accepted and is queued/);
  expect({ ...delivered, reinvoke: null }).toEqual(controlAvailability("completed", null));
  const recovering = controlAvailability("crashed", null, { kind: "recover", since: 1 });
  expect(recovering.recover).toMatch(/^The recovery was accepted and is queued/);
  expect({ ...recovering, recover: null }).toEqual(controlAvailability("crashed", null));
});

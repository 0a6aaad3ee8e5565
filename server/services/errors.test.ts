import { describe, expect, it } from "vitest";
import { InstanceNotFoundError, InstanceStateError } from "@/server/graph/errors";
import { SpecError, specIssue } from "@/server/graph/spec/spec-errors";
import { isServiceError, ServiceError, toServiceError } from "./errors";

describe("service errors", () => {
  it("normalizes engine and spec errors into typed service errors", () => {
    expect(toServiceError(new InstanceNotFoundError("7"))).toMatchObject({ code: "NOT_FOUND" });
    expect(toServiceError(new InstanceStateError("7", "stopped", "running"))).toMatchObject({ code: "INVALID_STATE" });
    const spec = toServiceError(new SpecError([specIssue("schema", ["nodes", 0], "bad")]));
    expect(spec).toMatchObject({ code: "INVALID_SPEC", details: { issues: [{ pathText: "nodes[0]" }] } });
    const other = new Error("boom");
    expect(toServiceError(other)).toBe(other);
  });

  it("recognizes a service error from another copy of the module (Next.js bundles instrumentation apart)", () => {
    // What a second bundle's ServiceError looks like to this one: a different class with the same brand.
    const foreign = Object.assign(new Error("instance 1 not found"), { [Symbol.for("modex.ServiceError")]: true, code: "NOT_FOUND" });
    expect(foreign).not.toBeInstanceOf(ServiceError);
    expect(isServiceError(foreign)).toBe(true);
    expect(toServiceError(foreign)).toBe(foreign);
    const foreignGraph = Object.assign(new Error("graph instance 1 not found"), { code: "GRAPH_INSTANCE_NOT_FOUND" });
    expect(toServiceError(foreignGraph)).toMatchObject({ code: "NOT_FOUND" });
  });
});

import { yamlBodyOf } from "@/server/api/http/yaml-body";
import { restRoute } from "@/server/api/rest";
import * as specRoute from "../[name]/route";

export const dynamic = "force-dynamic";

/**
 * POST /api/graphs/specs/validate — checks a spec without saving it (the editor's specs.validate). The
 * body as for POST /api/graphs/specs. 200 `{ ok, issues }`: every issue located (path, line, column).
 */
export const POST = restRoute({
  handle: async ({ services, request }) => {
    const yaml = await yamlBodyOf(request, "spec");
    return typeof yaml === "string" ? services.specs.validateAsync(yaml) : yaml;
  },
});

/**
 * GET and DELETE /api/graphs/specs/validate: the spec named "validate". This static segment shadows
 * `{name}` for that one name, so its reads and deletes are served here, as any other name's are.
 */
const named = { params: Promise.resolve({ name: "validate" }) };
export const GET = (request: Request) => specRoute.GET(request, named);
export const DELETE = (request: Request) => specRoute.DELETE(request, named);
